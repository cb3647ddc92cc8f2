/*
 * pipeline.h - a spec -> the core and the chosen engine -> one report bundle.
 *
 * Each computation fills its own struct in a kv_store (the plan table alone is kilobytes,
 * so a store lives in static or heap memory, never on the stack); the kv_report points at
 * what was asked for and leaves the rest NULL. A single run and the sweep both go through
 * kv_pipeline_run().
 */
#ifndef KVCALC_PIPELINE_H
#define KVCALC_PIPELINE_H

#include "keys.h"
#include "options.h"
#include "report.h"

typedef struct {
    kv_result result;
    kv_table table;
    kv_plan plan;
    kv_levers levers;
    kv_curve curve;
    kv_layouts layouts;
    kv_spec chosen;    /* --gpus without a typed layout: the best layout's spec */
    kv_result typed;   /* ... and the result of the layout as typed (TP 1 by default) */
    kv_sched sched;    /* a workload: the engine's scheduler ... */
    kv_workload_result workload; /* ... and what the workload gives on it */
    kv_error workload_why;       /* why it could not run (KV_ERR_WORKLOAD) */
    int workload_blames_engine;  /* 1: the engine's scheduler is what is missing */
    int workload_blames_step;    /* 1: the step's roofline cannot stand for it (no --tpot-ms) */
    int workload_blames_prefix;  /* 1: the engine's simulation keeps no prefix cache */
} kv_store;

/* Computes spec s and the sections o asks for (the context table unless it is a sweep's
 * row, --target-concurrency over every built-in GPU, --levers, the --plot curve) into *st,
 * and points *rep at them. Returns KV_OK or the
 * core's status for s. */
kv_status kv_pipeline_run(const kv_options *o, const kv_spec *s, kv_store *st, kv_report *rep);

/* The message for a status kv_pipeline_run() returned for s, naming the input to blame as
 * typed, into err ("kvcalc: ..."). */
void kv_pipeline_error(const kv_store *st, const kv_spec *s, const kv_options *o, kv_status rc,
                       char *err, size_t cap);

/* Whether a report meets one --require; got receives the value found, as JSON text. */
int kv_requirement_met(const kv_requirement *q, const kv_report *rep, char *got, size_t cap);

#endif
