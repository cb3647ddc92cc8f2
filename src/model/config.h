/*
 * config.h - limits of the config.json reader (its API is in kvcalc.h).
 */
#ifndef KVCALC_CONFIG_H
#define KVCALC_CONFIG_H

#include "kvcalc.h"

#include <stdio.h>

#define CONFIG_MAX_VALUES (1u << 18)  /* JSON values in one config */
#define CONFIG_MAX_DEPTH 32           /* nesting */

/* A file name as a message may show it (config_file.c, gguf_file.c): control bytes become
 * '?' - a name can hold any byte but '/' and NUL, and must not drive the terminal. */
const char *config_path_shown(char *buf, size_t cap, const char *path);

/* Opens path for reading; its name as shown into name. NULL (with "NAME: cannot
 * open: why" in err) when it cannot be opened. */
FILE *config_open(const char *path, char *name, size_t namecap, char *err, size_t errcap);

#endif
