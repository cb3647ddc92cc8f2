/*
 * modellist.h - the list of built-in models (--list-models), written once at build time.
 *
 * The list is a pure function of the embedded presets and the renderers: every row reads a
 * preset's config through the same reader and core as --model. Parsing 81 configs at every
 * run cost --list-models three times a start of /bin/true (issue 22), so the build runs
 * kv_model_list_write() once per format (src/cli/modellist_gen.c) and the program prints
 * the bytes it wrote. test_cli checks the printed list against a fresh one.
 */
#ifndef KVCALC_MODELLIST_H
#define KVCALC_MODELLIST_H

#include "report.h"

#include <stddef.h>
#include <stdio.h>

/* Every built-in model, one row each, in format f. Returns 0, or -1 with err set when a
 * preset does not load (a broken data/models/ file: the build fails on it). */
int kv_model_list_write(FILE *out, kv_list_format f, char *err, size_t errcap);

/* The lists the build wrote, by kv_list_format (models_list.c, generated; only the kvcalc
 * program links it). */
extern const unsigned char *const kv_model_list_bytes[3];
extern const size_t kv_model_list_size[3];

#endif
