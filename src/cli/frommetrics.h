/*
 * frommetrics.h - --from-metrics: a /metrics scrape (or two) read, its settings made inputs,
 * and the workload it measured, for kvcalc's figures beside the scrape's.
 */
#ifndef KVCALC_FROMMETRICS_H
#define KVCALC_FROMMETRICS_H

#include "build.h"
#include "options.h"

/* Reads the files into *m (the second starts the second scrape), checks --engine against
 * the scrape's and makes its settings inputs (*in: the engine, and the settings the engine's
 * table names; the measured pool as the KV figure). Returns 0, or KV_USAGE_ERROR with one
 * line naming the file. */
int kv_frommetrics_prepare(const kv_options *o, kv_metrics *m, kv_log_args *in, char *err,
                           size_t errcap);

/* The model the scrape's model label names, when the command line gives none: 0 with *model
 * loaded, 1 when it names no model kvcalc can load. */
int kv_frommetrics_model(const kv_metrics *m, kv_model *model);

/* The workload the measured figures describe, into w->workload: lengths fixed at the
 * measured means, the measured rate and step times. Returns 1 when there are lengths to put
 * on the scheduler, 0 when the scrape has none. */
int kv_frommetrics_workload(const kv_metrics_comparison *c, kv_options *w);

#endif
