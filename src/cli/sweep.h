/*
 * sweep.h - --sweep: one result row per point of a grid of inputs.
 */
#ifndef KVCALC_SWEEP_H
#define KVCALC_SWEEP_H

#include "cli.h"

/* Parses o->sweep, evaluates every grid point and prints one row each in o->format (text
 * table, CSV, or JSON lines). Returns the exit status (2 for a bad --sweep). */
int run_sweep(const cli_options *o);

#endif
