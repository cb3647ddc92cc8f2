/*
 * sweep.h - --sweep: one result row per point of a grid of inputs.
 */
#ifndef KVCALC_SWEEP_H
#define KVCALC_SWEEP_H

#include "build.h"

#include <stdio.h>

/* Parses o->sweep, checks every axis value through the spec builder, then evaluates every
 * grid point and writes one row each to out in o->format (a text table, CSV, or JSON lines).
 * model is the loaded --config/--model, or NULL. Returns the exit status: 0, 2 for a bad
 * --sweep (one line on stderr), 3 when out can no longer be written. */
int kv_sweep_run(const kv_options *o, const kv_model *model, FILE *out);

#endif
