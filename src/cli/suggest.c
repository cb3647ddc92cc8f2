/*
 * suggest.c - see suggest.h.
 */
#include "kvprint.h"
#include "suggest.h"

#include "keys.h"
#include "options.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Lowercase, without '-', '_' and spaces; 0 when the name is too long to compare. */
static size_t normalize(const char *in, size_t len, char *out)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)in[i];
        if (c == '-' || c == '_' || c == ' ')
            continue;
        if (n + 1 >= KV_SUGGEST_MAX)
            return 0;
        out[n++] = (char)tolower(c);
    }
    out[n] = '\0';
    return n;
}

/* Levenshtein distance with adjacent transpositions counted as one edit (the commonest
 * typo), over two short strings; one row of the table at a time plus the two before. */
static size_t distance(const char *a, size_t n, const char *b, size_t m)
{
    size_t rows[3][KV_SUGGEST_MAX + 1];
    size_t *prev2 = rows[0], *prev = rows[1], *cur = rows[2];
    for (size_t j = 0; j <= m; j++)
        prev[j] = j;
    for (size_t i = 1; i <= n; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= m; j++) {
            size_t cost = a[i - 1] != b[j - 1];
            size_t d = prev[j] + 1;
            if (cur[j - 1] + 1 < d)
                d = cur[j - 1] + 1;
            if (prev[j - 1] + cost < d)
                d = prev[j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                prev2[j - 2] + 1 < d)
                d = prev2[j - 2] + 1;
            cur[j] = d;
        }
        size_t *t = prev2;
        prev2 = prev;
        prev = cur;
        cur = t;
    }
    return prev[m];
}

void kv_suggest_init(kv_suggestion *s, const char *typed)
{
    s->typed_len = normalize(typed, strlen(typed), s->typed);
    s->best[0] = '\0';
    s->best_distance = SIZE_MAX;
}

void kv_suggest_try(kv_suggestion *s, const char *name, size_t len)
{
    char norm[KV_SUGGEST_MAX];
    size_t n = normalize(name, len, norm);
    if (n == 0 || s->typed_len == 0 || len >= sizeof s->best)
        return;
    size_t d = distance(s->typed, s->typed_len, norm, n);
    if (d < s->best_distance) {
        s->best_distance = d;
        memcpy(s->best, name, len);
        s->best[len] = '\0';
    }
}

void kv_suggest_list(kv_suggestion *s, const char *list, char sep)
{
    const char seps[2] = {sep, '\0'};
    while (list && *list) {
        size_t len = strcspn(list, seps);
        if (len)
            kv_suggest_try(s, list, len);
        list += len;
        list += *list != '\0';
    }
}

const char *kv_suggest_best(const kv_suggestion *s)
{
    /* close: one edit in a short name, two in a longer one, three in a long one - and never
     * as many edits as there are letters (then any name would do) */
    size_t limit = s->typed_len <= 4 ? 1 : s->typed_len <= 10 ? 2 : 3;
    if (s->best_distance > limit || s->best_distance >= s->typed_len)
        return NULL;
    return s->best;
}

const char *kv_suggest_hint(const kv_suggestion *s, const char *prefix, char *buf, size_t cap)
{
    const char *best = kv_suggest_best(s);
    if (!best)
        kv_snprintf(buf, cap, "%s", "");
    else
        kv_snprintf(buf, cap, "; did you mean '%s%s'?", prefix, best);
    return buf;
}

/* ---- kvcalc's tables ---- */

const char *kv_hint_flag(const char *typed, int short_typed, char *buf, size_t cap)
{
    kv_suggestion lng, shrt;
    kv_suggest_init(&lng, typed);
    kv_suggest_init(&shrt, typed);
    for (size_t i = 0; i < kv_flag_count(); i++) {
        const kv_flag *f = kv_flag_at(i);
        kv_suggest_try(&lng, f->name, strlen(f->name));
        for (size_t a = 0; a < KV_MAX_ALIASES && f->alias[a]; a++)
            kv_suggest_try(&lng, f->alias[a], strlen(f->alias[a]));
        if (short_typed && f->short_name)
            kv_suggest_try(&shrt, f->short_name, strlen(f->short_name));
    }
    /* "-ctx-size": a long name typed with one dash is still the long name */
    if (short_typed && kv_suggest_best(&shrt) && shrt.best_distance <= lng.best_distance)
        return kv_suggest_hint(&shrt, "-", buf, cap);
    return kv_suggest_hint(&lng, "--", buf, cap);
}

const char *kv_hint_model(const char *typed, char *buf, size_t cap)
{
    kv_suggestion s;
    kv_suggest_init(&s, typed);
    for (size_t i = 0; i < kv_model_preset_count(); i++) {
        const kv_model_preset *m = kv_model_preset_at(i);
        kv_suggest_try(&s, m->alias, strlen(m->alias));
        kv_suggest_try(&s, m->id, strlen(m->id));
    }
    return kv_suggest_hint(&s, "", buf, cap);
}

const char *kv_hint_gpu(const char *typed, char *buf, size_t cap)
{
    kv_suggestion s;
    kv_suggest_init(&s, typed);
    for (size_t i = 0; i < kv_gpu_count(); i++) {
        const kv_gpu *g = kv_gpu_at(i);
        kv_suggest_try(&s, g->name, strlen(g->name));
        kv_suggest_list(&s, g->aliases, ' ');
        kv_suggest_list(&s, g->smi_names, '|');
    }
    return kv_suggest_hint(&s, "", buf, cap);
}

const char *kv_hint_dtype(const char *typed, char *buf, size_t cap)
{
    kv_suggestion s;
    kv_suggest_init(&s, typed);
    for (int i = 0; i < KV_DTYPE_COUNT; i++)
        kv_suggest_try(&s, kv_dtype_get((kv_dtype)i)->name, strlen(kv_dtype_get((kv_dtype)i)->name));
    for (size_t i = 0; kv_dtype_spelling(i); i++)
        kv_suggest_try(&s, kv_dtype_spelling(i), strlen(kv_dtype_spelling(i)));
    return kv_suggest_hint(&s, "", buf, cap);
}

const char *kv_hint_key(const char *typed, int numeric_only, char *buf, size_t cap)
{
    kv_suggestion s;
    kv_suggest_init(&s, typed);
    for (size_t i = 0; i < kv_field_count() + kv_log_field_count(); i++) { /* --from-log's too */
        const kv_field *k = i < kv_field_count() ? kv_field_at(i)
                                                 : kv_log_field_at(i - kv_field_count());
        if (!numeric_only || kv_field_is_numeric(k))
            kv_suggest_try(&s, k->name, strlen(k->name));
    }
    return kv_suggest_hint(&s, "", buf, cap);
}

const char *kv_hint_input(const char *typed, char *buf, size_t cap)
{
    kv_suggestion s;
    kv_suggest_init(&s, typed);
    kv_suggest_try(&s, "gpu", 3);
    kv_suggest_try(&s, "model", 5);
    for (size_t i = 0; i < kv_flag_count(); i++) {
        const kv_flag *f = kv_flag_at(i);
        if (f->does != DO_SPEC || f->arg == ARG_NONE)
            continue;
        kv_suggest_try(&s, f->name, strlen(f->name));
        for (size_t a = 0; a < KV_MAX_ALIASES && f->alias[a]; a++)
            kv_suggest_try(&s, f->alias[a], strlen(f->alias[a]));
    }
    return kv_suggest_hint(&s, "", buf, cap);
}
