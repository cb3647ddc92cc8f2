/*
 * config.h - limits of the config.json reader (its API is in kvcalc.h).
 */
#ifndef KVCALC_CONFIG_H
#define KVCALC_CONFIG_H

#include "kvcalc.h"

#define CONFIG_MAX_VALUES (1u << 18)  /* JSON values in one config */
#define CONFIG_MAX_DEPTH 32           /* nesting */

#endif
