/*
 * metrics.c - a Prometheus text scrape of a serving engine's /metrics (vLLM, SGLang,
 * llama.cpp's server): the figures a capacity question needs, by a table of metric names.
 *
 * Every name generation reads into the same figure: vLLM's gpu_cache_usage_perc (V0, early
 * V1) and kv_cache_usage_perc (V1 0.10+), its prefix-cache counters in blocks or in tokens,
 * cache_config_info's labels (num_gpu_blocks, block_size, and in 2026 builds
 * kv_cache_size_tokens); SGLang's names with a colon or re-exported with an underscore
 * (sglang_), and the WIP names of 2024 (num_requests_running, queue_req, a hit rate in
 * percent); llama.cpp's requests_processing and the kv_cache_* gauges builds before #13660
 * had. Series of several ranks: SGLang's tp_rank above 0 repeats rank 0 and is left out;
 * vLLM's engines (data parallel) and SGLang's dp ranks are summed (counts) or averaged
 * (usage). A second scrape starts where the file's first series comes again; with sample
 * timestamps the interval is theirs. Lines are bounded; an error names its line.
 */
#include "engine.h"
#include "kvprint.h"
#include "lines.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvmath.h"

#define MAX_LABELS 48

static double *figure(kv_metrics_scrape *s, size_t at)
{
    return (double *)((char *)s + at);
}

/* Every double of the scrape from capacity_tokens to busy_slots_per_decode is a figure: NaN
 * until read. */
static void scrape_init(kv_metrics_scrape *s)
{
    memset(s, 0, sizeof *s);
    s->engine = KV_ENGINE_COUNT;
    s->time_s = s->prefix_caching = NAN;
    for (double *d = &s->capacity_tokens; d <= &s->busy_slots_per_decode; d++)
        *d = NAN;
}

void kv_metrics_init(kv_metrics *m)
{
    memset(m, 0, sizeof *m);
    scrape_init(&m->scrape[0]);
    scrape_init(&m->scrape[1]);
}

typedef struct {
    const char *name, *value; /* into the line's copy, NUL-terminated */
} label;

static kv_status bad(kv_metrics *m, char *err, size_t cap, const char *what, const char *line,
                     size_t len)
{
    char shown[64];
    size_t n = len < 48 ? len : 48;
    for (size_t i = 0; i < n; i++)
        shown[i] = (unsigned char)line[i] < 0x20 || line[i] == 0x7f ? '?' : line[i];
    shown[n] = '\0';
    kv_snprintf(err, cap, "line %zu: %s, got '%s%s'", m->line, what, shown, len > 48 ? "..." : "");
    return KV_ERR_FORMAT;
}

/* A sample's value: a Prometheus float, NaN, +Inf, -Inf; Windows builds of llama.cpp print
 * NaN as -nan(ind), read as NaN. */
static int value_of(const char *s, double *out)
{
    if (strcmp(s, "NaN") == 0 || strcmp(s, "nan") == 0 || strcmp(s, "-nan") == 0 ||
        strcmp(s, "-nan(ind)") == 0 || strcmp(s, "nan(ind)") == 0) {
        *out = NAN;
        return 0;
    }
    if (strcmp(s, "+Inf") == 0 || strcmp(s, "Inf") == 0) {
        *out = INFINITY;
        return 0;
    }
    if (strcmp(s, "-Inf") == 0) {
        *out = -INFINITY;
        return 0;
    }
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || (s[0] != '-' && s[0] != '+' && s[0] != '.' && (s[0] < '0' || s[0] > '9')))
        return -1;
    if (errno == ERANGE && isinf(v))
        return -1;
    *out = v;
    return 0;
}

static const char *label_value(const label *lb, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(lb[i].name, name) == 0)
            return lb[i].value;
    return NULL;
}

/* An info metric's labels (vLLM's cache_config_info): the settings they hold. */
static void info_labels(kv_metrics_scrape *s, const kv_engine_metrics *em, const char *bare,
                        const label *lb, size_t n)
{
    for (size_t k = 0; k < em->n_labels; k++) {
        if (strcmp(em->labels[k].metric, bare) != 0)
            continue;
        const char *v = label_value(lb, n, em->labels[k].label);
        double x;
        if (!v)
            continue;
        if (strcmp(v, "True") == 0 || strcmp(v, "False") == 0)
            x = v[0] == 'T';
        else if (value_of(v, &x) != 0)
            continue; /* "None" (early V1's num_gpu_blocks): unknown */
        if (isnan(*figure(s, em->labels[k].at)))
            *figure(s, em->labels[k].at) = x;
    }
}

/* The engine whose prefix a name has, and the name after it. */
static const kv_engine_desc *engine_of(const char *name, const char **bare, const char **words)
{
    for (int e = 0; e < KV_ENGINE_COUNT; e++) {
        const kv_engine_desc *d = kv_engine_get((kv_engine)e);
        if (!d->metrics)
            continue;
        for (size_t k = 0; d->metrics->prefixes[k]; k++) {
            size_t len = strlen(d->metrics->prefixes[k]);
            if (strncmp(name, d->metrics->prefixes[k], len) == 0) {
                *bare = name + len;
                *words = d->metrics->prefix_words[k];
                return d;
            }
        }
    }
    return NULL;
}

/* One sample into the scrape's figures. */
static void take(kv_metrics_scrape *s, const char *name, const label *lb, size_t n, double v)
{
    const char *bare, *words;
    const kv_engine_desc *d = engine_of(name, &bare, &words);
    if (!d)
        return; /* python_*, process_*: not the engine's */
    const kv_engine_metrics *em = d->metrics;
    if (s->engine == KV_ENGINE_COUNT)
        s->engine = d->id;
    if (d->id != s->engine)
        return;
    if (words)
        s->prefix_generation = words;
    /* another rank of the same replica reports the same figures again; with a replica label
     * (SGLang's dp_rank under DP attention, tp_rank is then global) each is its own */
    const char *rep = em->replica_label ? label_value(lb, n, em->replica_label) : NULL;
    for (size_t k = 0; !rep && em->rank_labels && em->rank_labels[k]; k++) {
        const char *r = label_value(lb, n, em->rank_labels[k]);
        if (r && strcmp(r, "0") != 0)
            return;
    }
    const char *model = label_value(lb, n, "model_name");
    if (!model)
        model = label_value(lb, n, "name");
    if (model && !s->model[0])
        kv_snprintf(s->model, sizeof s->model, "%s", model);
    if (rep) { /* replicas of the engine, counted by their label */
        long k = strtol(rep, NULL, 10);
        if (k >= 0 && k < 4096 && k + 1 > s->replicas)
            s->replicas = (int)k + 1;
        if (em->n_labels > 0 && strcmp(rep, "0") != 0)
            goto rows; /* the settings are the first replica's */
    }
    info_labels(s, em, bare, lb, n);
rows:
    for (size_t i = 0; i < em->n_rows && i < KV_METRICS_ROWS; i++) {
        const kv_metric_row *row = &em->rows[i];
        if (strcmp(row->name, bare) != 0)
            continue;
        double *f = figure(s, row->at);
        for (size_t j = 0; j < em->n_rows && j < KV_METRICS_ROWS; j++)
            if (j != i && em->rows[j].at == row->at && s->series[j] > 0)
                return; /* two names of one figure (queue_req and num_requests_waiting): the
                           first read wins, not their sum */
        if (row->generation && !s->generation)
            s->generation = row->generation;
        if (isnan(*f)) {
            *f = v;
            s->series[i] = 1;
        } else if (row->how == KV_AGG_SUM) {
            *f += v;
        } else if (row->how == KV_AGG_MEAN) { /* a running mean of the series */
            s->series[i]++;
            *f += (v - *f) / (double)s->series[i];
        }
        return;
    }
}

kv_status kv_metrics_feed_line(kv_metrics *m, const char *line, size_t len, char *err,
                               size_t cap)
{
    char buf[KV_METRICS_LINE_MAX + 1];
    m->line++;
    if (len > 0 && line[len - 1] == '\r')
        len--;
    if (len > KV_METRICS_LINE_MAX)
        return bad(m, err, cap, "longer than 65,536 bytes", line, 48);
    size_t i = 0;
    while (i < len && (line[i] == ' ' || line[i] == '\t'))
        i++;
    if (i == len || line[i] == '#')
        return KV_OK; /* blank, HELP, TYPE, EOF and other comments */
    memcpy(buf, line + i, len - i);
    buf[len - i] = '\0';
    /* the name */
    char *p = buf;
    if (!(*p == '_' || *p == ':' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
        return bad(m, err, cap, "expected a metric sample (name{labels} value)", line + i, len - i);
    while (*p == '_' || *p == ':' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
           (*p >= '0' && *p <= '9'))
        p++;
    char *name_end = p;
    label lb[MAX_LABELS];
    size_t n = 0;
    if (*p == '{') {
        *name_end = '\0';
        p++;
        for (;;) {
            while (*p == ' ' || *p == ',')
                p++;
            if (*p == '}') {
                p++;
                break;
            }
            char *ln = p;
            while (*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                   (*p >= '0' && *p <= '9'))
                p++;
            if (p == ln || *p != '=' || p[1] != '"')
                return bad(m, err, cap, "expected label=\"value\" in the braces", line + i, len - i);
            *p = '\0';
            p += 2;
            char *out = p, *val = p;
            while (*p && *p != '"') { /* \\, \" and \n as the format escapes them */
                if (*p == '\\' && p[1]) {
                    p++;
                    *out++ = *p == 'n' ? '\n' : *p;
                    p++;
                } else
                    *out++ = *p++;
            }
            if (*p != '"')
                return bad(m, err, cap, "a label value without its closing quote", line + i,
                           len - i);
            *out = '\0';
            p++;
            if (n < MAX_LABELS) {
                lb[n].name = ln;
                lb[n].value = val;
                n++;
            }
        }
    }
    if (*p != ' ' && *p != '\t')
        return bad(m, err, cap, "expected a blank and a value after the metric's name", line + i,
                   len - i);
    if (p == name_end) /* no labels: the blank ends the name */
        *p++ = '\0';
    while (*p == ' ' || *p == '\t')
        p++;
    char *vs = p;
    while (*p && *p != ' ' && *p != '\t')
        p++;
    char *ts = NULL;
    if (*p) {
        *p++ = '\0';
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p)
            ts = p;
    }
    double v, t = NAN;
    if (value_of(vs, &v) < 0)
        return bad(m, err, cap, "expected a number as the sample's value", vs, strlen(vs));
    if (ts) {
        char *end;
        t = strtod(ts, &end);
        while (*end == ' ' || *end == '\t')
            end++;
        if (end == ts || *end || !isfinite(t))
            return bad(m, err, cap, "expected a timestamp in milliseconds after the value", ts,
                       strlen(ts));
        t /= 1000.0;
    }
    /* the scrape this sample belongs to: a new one where the file's first series comes
     * again (the same name and labels, the same order of lines) */
    size_t key_len = (size_t)(vs - buf);
    if (m->first_key_len == 0 && key_len < sizeof m->first_key) {
        memcpy(m->first_key, line + i, key_len);
        m->first_key_len = key_len;
    } else if (key_len == m->first_key_len && memcmp(m->first_key, line + i, key_len) == 0) {
        m->scrapes++;
        if (m->scrapes >= 2) /* the first and the latest are kept */
            scrape_init(&m->scrape[1]);
    }
    kv_metrics_scrape *s = &m->scrape[m->scrapes > 0 ? 1 : 0];
    if (!isnan(t) && isnan(s->time_s))
        s->time_s = t;
    s->samples++;
    take(s, buf, lb, n, v);
    return KV_OK;
}

kv_status kv_metrics_finish(kv_metrics *m, char *err, size_t cap)
{
    m->n = m->scrapes > 0 ? 2 : 1;
    for (size_t k = 0; k < m->n; k++) {
        kv_metrics_scrape *s = &m->scrape[k];
        if (s->engine == KV_ENGINE_COUNT) {
            kv_snprintf(err, cap, "no metric of vLLM (vllm:), SGLang (sglang:, sglang_) or llama.cpp "
                               "(llamacpp:) in %s (%zu lines)",
                     k ? "the second scrape" : "the scrape", m->line);
            return KV_ERR_FORMAT;
        }
        if (isnan(s->kv_usage) && !isnan(s->kv_usage_old))
            s->kv_usage = s->kv_usage_old;
        if (!s->generation)
            s->generation = s->prefix_generation ? s->prefix_generation : "";
        if (s->prefix_hit_rate < 0) /* vLLM V0's -1: prefix caching off */
            s->prefix_hit_rate = NAN;
        if (!isnan(s->max_concurrency) && s->max_concurrency > 0 && !isnan(s->capacity_tokens))
            s->max_model_len = kvm_floor(s->capacity_tokens / s->max_concurrency + 0.5);
        if (isnan(s->prefix_queries) && !isnan(s->prefix_queries_old)) { /* blocks, then tokens */
            s->prefix_queries = s->prefix_queries_old;
            s->prefix_hits = s->prefix_hits_old;
        }
        if (isnan(s->tpot_sum) && !isnan(s->itl_sum)) { /* renamed in V1 (gpustack#2985) */
            s->tpot_sum = s->itl_sum;
            s->tpot_count = s->itl_count;
        }
        if (isnan(s->capacity_tokens) && !isnan(s->gpu_blocks) && !isnan(s->block_size))
            s->capacity_tokens = s->gpu_blocks * s->block_size;
        /* the WIP names gave the hit rate in percent */
        if (s->engine == KV_ENGINE_SGLANG && s->prefix_hit_rate > 1)
            s->prefix_hit_rate /= 100.0;
    }
    if (m->n == 2 && m->scrape[0].engine != m->scrape[1].engine) {
        kv_snprintf(err, cap, "the two scrapes are of different engines");
        return KV_ERR_FORMAT;
    }
    for (size_t k = 0; k < m->n; k++) { /* a fraction gauge beyond [0, 1] is no usage */
        double u = m->scrape[k].kv_usage;
        if (!isnan(u) && !(u >= 0 && u <= 1)) {
            kv_snprintf(err, cap, "%s: the KV cache usage gauge is %g: expected a fraction from "
                                  "0 to 1 (kv_cache_usage_perc, token_usage, kv_cache_usage_ratio)",
                        k ? "the second scrape" : m->n > 1 ? "the first scrape" : "the scrape", u);
            return KV_ERR_FORMAT;
        }
    }
    if (m->n < 2)
        return KV_OK;
    const kv_metrics_scrape *a = &m->scrape[0], *b = &m->scrape[1];
    if (!isnan(a->time_s) && !isnan(b->time_s) && !(b->time_s > a->time_s)) {
        kv_snprintf(err, cap, "the second scrape's timestamp (%.3f s) is not after the first's "
                              "(%.3f s): no interval between them", b->time_s, a->time_s);
        return KV_ERR_FORMAT;
    }
    /* a counter never goes down but when the server restarts (Prometheus' rate() takes it as
     * a reset): two scrapes across a restart measure no interval */
    static const struct {
        size_t at;
        const char *what;
    } counters[] = {
        {offsetof(kv_metrics_scrape, finished), "requests finished"},
        {offsetof(kv_metrics_scrape, preemptions), "preemptions"},
        {offsetof(kv_metrics_scrape, prompt_count), "the prompt-length histogram's count"},
        {offsetof(kv_metrics_scrape, output_count), "the output-length histogram's count"},
        {offsetof(kv_metrics_scrape, e2e_count), "the latency histogram's count"},
        {offsetof(kv_metrics_scrape, prefix_queries), "prefix-cache queries"},
        {offsetof(kv_metrics_scrape, prefix_hits), "prefix-cache hits"},
        {offsetof(kv_metrics_scrape, prompt_tokens_total), "prompt tokens"},
        {offsetof(kv_metrics_scrape, generation_tokens_total), "generation tokens"},
    };
    for (size_t i = 0; i < sizeof counters / sizeof counters[0]; i++) {
        double x = *(const double *)((const char *)a + counters[i].at);
        double y = *(const double *)((const char *)b + counters[i].at);
        if (!isnan(x) && !isnan(y) && y < x) {
            kv_snprintf(err, cap, "the counter of %s went down between the scrapes (%g to %g): "
                                  "the server restarted between them; take both from one run",
                        counters[i].what, x, y);
            return KV_ERR_FORMAT;
        }
    }
    return KV_OK;
}

static kv_status metrics_feed(void *ctx, const char *line, size_t len, char *err, size_t cap)
{
    return kv_metrics_feed_line(ctx, line, len, err, cap);
}

kv_status kv_metrics_read_file(const char *path, const char *label, kv_metrics *m, char *err,
                               size_t cap)
{
    char msg[512];
    kv_status st = kv_lines_read(path, KV_METRICS_LINE_MAX, metrics_feed, NULL, m, NULL, msg,
                                 sizeof msg);
    if (st != KV_OK)
        kv_snprintf(err, cap, "%s: %s", label, msg);
    return st;
}

void kv_metrics_next(kv_metrics *m)
{
    if (m->scrapes >= 1)
        scrape_init(&m->scrape[1]);
    m->scrapes++;
}

void kv_metrics_inputs_of(const kv_metrics *m, kv_metrics_inputs *out)
{
    out->n = 0;
    const kv_metrics_scrape *s = &m->scrape[m->n > 1 ? 1 : 0];
    const kv_engine_desc *d = kv_engine_get(s->engine);
    if (!d || !d->metrics)
        return;
    for (size_t i = 0; i < d->metrics->n_inputs && out->n < KV_METRICS_MAX_INPUTS; i++) {
        const kv_metric_input *in = &d->metrics->inputs[i];
        double v = *(const double *)((const char *)s + in->at);
        if (isnan(v) || v < 0 || v > 1e15)
            continue;
        out->item[out->n].flag = in->flag;
        out->item[out->n].measured = in->measured;
        if (v == kvm_floor(v))
            snprintf(out->item[out->n].text, sizeof out->item[out->n].text, "%.0f", v);
        else
            snprintf(out->item[out->n].text, sizeof out->item[out->n].text, "%.17g", v);
        out->n++;
    }
}

/* b - a of a counter, or the latest's value alone (one scrape: since the server started) */
static double delta(double a, double b, int two)
{
    return two ? b - a : b;
}

static double ratio(double num, double den)
{
    return den > 0 && !isnan(num) ? num / den : NAN;
}

void kv_metrics_measure(const kv_metrics *m, double interval_s, kv_metrics_comparison *out)
{
    const kv_metrics_scrape *a = &m->scrape[0], *b = &m->scrape[m->n > 1 ? 1 : 0];
    int two = m->n > 1;
    for (double *d = &out->capacity_tokens; d <= &out->onset_rate; d++)
        *d = NAN;
    out->engine = b->engine;
    out->generation = b->generation;
    out->model = b->model;
    out->scrapes = (int64_t)m->n;
    out->replicas = b->replicas;
    out->binding = NULL;
    out->interval_s = interval_s > 0 ? interval_s
                      : two && b->time_s > a->time_s ? b->time_s - a->time_s
                                                     : NAN;
    out->capacity_tokens = b->capacity_tokens;
    out->running = b->running;
    out->waiting = b->waiting;
    out->kv_usage = b->kv_usage;
    out->preemptions = b->preemptions;
    double dt = out->interval_s;
    if (two && dt > 0) {
        out->preemptions_per_s = (b->preemptions - a->preemptions) / dt;
        double done = b->finished - a->finished;
        if (isnan(done))
            done = b->prompt_count - a->prompt_count;
        if (isnan(done))
            done = b->e2e_count - a->e2e_count;
        out->rate = done / dt;
    }
    out->prompt_mean = ratio(delta(a->prompt_sum, b->prompt_sum, two),
                             delta(a->prompt_count, b->prompt_count, two));
    out->output_mean = ratio(delta(a->output_sum, b->output_sum, two),
                             delta(a->output_count, b->output_count, two));
    out->tpot_s = ratio(delta(a->tpot_sum, b->tpot_sum, two), delta(a->tpot_count, b->tpot_count, two));
    out->ttft_s = ratio(delta(a->ttft_sum, b->ttft_sum, two), delta(a->ttft_count, b->ttft_count, two));
    out->e2e_s = ratio(delta(a->e2e_sum, b->e2e_sum, two), delta(a->e2e_count, b->e2e_count, two));
    out->queue_s = ratio(delta(a->queue_sum, b->queue_sum, two),
                         delta(a->queue_count, b->queue_count, two));
    out->lengths_from_totals = 0;
    out->capacity_derived = 0;
    if (isnan(out->prompt_mean)) { /* the token counters over the requests finished */
        double done = delta(a->finished, b->finished, two);
        if (isnan(done))
            done = delta(a->e2e_count, b->e2e_count, two);
        out->prompt_mean = ratio(delta(a->prompt_tokens_total, b->prompt_tokens_total, two), done);
        out->output_mean = ratio(delta(a->generation_tokens_total, b->generation_tokens_total, two),
                                 done);
        out->lengths_from_totals = !isnan(out->prompt_mean);
    }
    if (isnan(out->capacity_tokens) && b->used_tokens > 0 && b->kv_usage > 0) {
        out->capacity_tokens = kvm_floor(b->used_tokens / b->kv_usage + 0.5);
        out->capacity_derived = 1;
    }
    out->prefix_hit_rate = ratio(delta(a->prefix_hits, b->prefix_hits, two),
                                 delta(a->prefix_queries, b->prefix_queries, two));
    if (isnan(out->prefix_hit_rate))
        out->prefix_hit_rate = b->prefix_hit_rate;
}

void kv_metrics_predict(kv_metrics_comparison *c, const kv_result *r, const kv_sched *sc,
                        const kv_workload_result *w)
{
    if (r && r->kv_cache_tokens > 0) {
        c->predicted_capacity_tokens = (double)r->kv_cache_tokens;
        if (c->capacity_tokens > 0)
            c->capacity_error_pct = (c->predicted_capacity_tokens - c->capacity_tokens) /
                                    c->capacity_tokens * 100.0;
    }
    if (w && w->simulated) {
        c->predicted_running = w->running_mean;
        c->predicted_waiting = w->waiting_mean;
        c->predicted_kv_usage = w->kv_usage_mean;
        c->predicted_preemptions_per_s = w->preemptions_per_s;
    } else if (w && sc && !isnan(c->running) && sc->pool_blocks > 0) {
        /* one scrape: what the running requests hold at the measured mean lengths */
        c->predicted_kv_usage = c->running * w->blocks_mean / (double)sc->pool_blocks;
        if (c->predicted_kv_usage > 1)
            c->predicted_kv_usage = 1;
    }
    if (w) {
        c->saturation_rate = w->saturation_rate;
        c->onset_rate = w->preemption_onset_rate;
        c->binding = w->binding;
    }
}
