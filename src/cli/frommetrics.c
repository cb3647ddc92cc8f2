/*
 * frommetrics.c - a scrape's figures as a run's inputs (see frommetrics.h). The figures and
 * which of them are inputs come from the library (kv_metrics_*, the engine's table).
 */
#include "frommetrics.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kvmath.h"
#include "kvprint.h"

int kv_frommetrics_prepare(const kv_options *o, kv_metrics *m, kv_log_args *in, char *err,
                           size_t errcap)
{
    char label[300], shown[220], msg[700];
    kv_metrics_init(m);
    for (size_t i = 0; i < o->n_metrics; i++) {
        kv_snprintf(label, sizeof label, "--from-metrics %s",
                 kv_safe(shown, sizeof shown, o->from_metrics[i], 200));
        if (i > 0)
            kv_metrics_next(m);
        if (kv_metrics_read_file(o->from_metrics[i], label, m, msg, sizeof msg) != KV_OK)
            return kv_fail(err, errcap, "%s", msg);
    }
    kv_snprintf(label, sizeof label, "--from-metrics %s",
             kv_safe(shown, sizeof shown, o->from_metrics[0], 200));
    if (kv_metrics_finish(m, msg, sizeof msg) != KV_OK)
        return kv_fail(err, errcap, "%s: %s", label, msg);
    const kv_metrics_scrape *s = &m->scrape[m->n - 1];
    size_t e = kv_param_index(kv_core_param_get(KV_P_ENGINE));
    if (o->set[e] && o->values[e].engine != s->engine)
        return kv_fail(err, errcap, "%s: the scrape is %s's, not --engine %s's", label,
                       kv_engine_title(s->engine), kv_engine_name(o->values[e].engine));
    memset(in, 0, sizeof *in);
    in->kind[e] = KV_LOG_SETTING;
    in->values[e].engine = s->engine;
    kv_metrics_inputs inputs;
    kv_metrics_inputs_of(m, &inputs);
    for (size_t i = 0; i < inputs.n; i++) {
        const char *name = inputs.item[i].flag;
        const kv_flag *f = kv_flag_find_for(name, strlen(name), s->engine);
        if (!f)
            continue;
        char typed[400];
        kv_snprintf(typed, sizeof typed, "%s: %s", label, name);
        kv_value v;
        int rc = kv_flag_value(f, typed, inputs.item[i].text, &v, err, errcap);
        if (rc == KV_USAGE_ERROR)
            return rc;
        if (rc == 0) {
            size_t k = kv_flag_index(f);
            in->kind[k] = inputs.item[i].measured ? KV_LOG_KV_FIGURE : KV_LOG_SETTING;
            in->values[k] = v;
        }
    }
    return 0;
}

int kv_frommetrics_model(const kv_metrics *m, kv_model *model)
{
    const char *name = m->scrape[m->n - 1].model;
    char err[1024];
    if (!name[0])
        return 1;
    /* a built-in model by its id or alias, or the last part of a served path */
    if (kv_model_load(NULL, name, model, err, sizeof err) == 0)
        return 0;
    const char *end = name + strlen(name);
    while (end > name && end[-1] == '/')
        end--;
    const char *last = end;
    while (last > name && last[-1] != '/')
        last--;
    char part[128];
    if (end > last && (size_t)(end - last) < sizeof part) {
        memcpy(part, last, (size_t)(end - last));
        part[end - last] = '\0';
        if (kv_model_preset_find(part) && kv_model_load(NULL, part, model, err, sizeof err) == 0)
            return 0;
    }
    return 1;
}

int kv_frommetrics_workload(const kv_metrics_comparison *c, kv_options *w)
{
    if (!(c->prompt_mean >= 1 && c->output_mean >= 1))
        return 0;
    kv_workload *wl = &w->workload;
    wl->prompt = (kv_dist){.kind = KV_DIST_FIXED, .value = kvm_floor(c->prompt_mean + 0.5)};
    wl->output = (kv_dist){.kind = KV_DIST_FIXED, .value = kvm_floor(c->output_mean + 0.5)};
    w->workload_given |= 1u << WL_PROMPT | 1u << WL_OUTPUT;
    if (c->rate > 0 && c->tpot_s > 0) { /* two scrapes: the interval's rate and step time */
        wl->rate = c->rate;
        wl->tpot_ms = c->tpot_s * 1000.0;
        if (c->ttft_s > c->tpot_s)
            wl->ttft_ms = c->ttft_s * 1000.0;
    } else if (c->tpot_s > 0) /* the step time gives the rates at which limits bind */
        wl->tpot_ms = c->tpot_s * 1000.0;
    return 1;
}
