/*
 * suggest.h - "did you mean": the closest known name to what the user typed.
 *
 * Candidates are fed one at a time (or as a space- or '|'-separated list), so that every
 * table - flags, models, GPUs, dtypes, output keys, choices - can be searched without
 * building an array. Names are compared ignoring case, '-', '_' and spaces (how kvcalc
 * matches GPUs and how people misremember flags), by edit distance, and a name is offered
 * only when it is close: a suggestion that is far off is noise.
 */
#ifndef KVCALC_SUGGEST_H
#define KVCALC_SUGGEST_H

#include <stddef.h>

#define KV_SUGGEST_MAX 96 /* longest name compared; longer ones are not suggested */

typedef struct {
    char typed[KV_SUGGEST_MAX];  /* normalized */
    size_t typed_len;
    char best[KV_SUGGEST_MAX];   /* the candidate as given */
    size_t best_distance;        /* SIZE_MAX: none yet */
} kv_suggestion;

void kv_suggest_init(kv_suggestion *s, const char *typed);
/* One candidate of len bytes. */
void kv_suggest_try(kv_suggestion *s, const char *name, size_t len);
/* Every name of a list separated by sep (' ' for aliases, '|' for nvidia-smi names). */
void kv_suggest_list(kv_suggestion *s, const char *list, char sep);
/* The closest candidate when it is close enough, else NULL. */
const char *kv_suggest_best(const kv_suggestion *s);
/* "; did you mean 'X'?" into buf (prefix before X), or "" when nothing is close. */
const char *kv_suggest_hint(const kv_suggestion *s, const char *prefix, char *buf, size_t cap);

/* The same hint against one of kvcalc's tables: flags (long names and aliases, and short
 * names when short_typed), built-in models, GPUs (names, aliases, nvidia-smi names), dtypes,
 * output keys (numeric ones only when numeric_only), and the inputs a sweep can vary. */
const char *kv_hint_flag(const char *typed, int short_typed, char *buf, size_t cap);
const char *kv_hint_model(const char *typed, char *buf, size_t cap);
const char *kv_hint_gpu(const char *typed, char *buf, size_t cap);
const char *kv_hint_dtype(const char *typed, char *buf, size_t cap);
const char *kv_hint_key(const char *typed, int numeric_only, char *buf, size_t cap);
const char *kv_hint_input(const char *typed, char *buf, size_t cap);

#endif
