/*
 * require.c - --require KEY OP NUMBER: a numeric output field, a comparison, a number.
 */
#include "kvprint.h"
#include "options.h"

#include "suggest.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *text;
    req_op op;
} req_ops[] = {{">=", REQ_GE}, {"<=", REQ_LE}, {"==", REQ_EQ}, {">", REQ_GT}, {"<", REQ_LT}};
#define N_REQ_OPS (sizeof req_ops / sizeof req_ops[0])

/* Every numeric key, space-separated. */
static void numeric_keys(char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < kv_field_count() + kv_log_field_count() && n < cap; i++) {
        const kv_field *k = i < kv_field_count() ? kv_field_at(i)
                                                 : kv_log_field_at(i - kv_field_count());
        if (!kv_field_is_numeric(k) || kv_field_find(k->name) != k)
            continue; /* a string, or a --from-log key the run's list already names */
        int w = kv_snprintf(buf + n, cap - n, "%s%s", n ? " " : "", k->name);
        if (w < 0)
            break;
        n += (size_t)w;
    }
}

/* "max_concurrency>=64": spaces allowed; the number is read whole, however long. */
int kv_requirement_parse(const char *text, kv_requirement *q, char *err, size_t cap)
{
    char shown[KV_SHOWN + 8], key[64];
    const char *p = text;
    size_t k = 0;
    while (*p == ' ')
        p++;
    while ((isalnum((unsigned char)*p) || *p == '_') && k + 1 < sizeof key)
        key[k++] = *p++;
    key[k] = '\0';
    while (*p == ' ')
        p++;
    size_t o;
    for (o = 0; o < N_REQ_OPS; o++)
        if (strncmp(p, req_ops[o].text, strlen(req_ops[o].text)) == 0)
            break;
    kv_safe(shown, sizeof shown, text, KV_SHOWN);
    if (k == 0 || o == N_REQ_OPS)
        return kv_fail(err, cap, "--require: expected KEY>=N, KEY<=N, KEY>N, KEY<N or KEY==N, "
                                 "got '%s'",
                       shown);
    p += strlen(req_ops[o].text);
    while (*p == ' ')
        p++;
    size_t n = strlen(p);
    while (n > 0 && p[n - 1] == ' ')
        n--;
    char *number = malloc(n + 1);
    if (!number)
        return kv_fail(err, cap, "--require: out of memory");
    memcpy(number, p, n);
    number[n] = '\0';
    int rc = kv_parse_number(number, &q->value);
    free(number);
    if (rc != 0)
        return kv_fail(err, cap, "--require: expected a number after '%s', got '%s'",
                       req_ops[o].text, shown);
    q->key = kv_field_find(key);
    if (!q->key || !kv_field_is_numeric(q->key)) {
        static char keys[12288];
        numeric_keys(keys, sizeof keys);
        char hint[160];
        return kv_fail(err, cap, "--require: unknown numeric key '%s'%s (expected one of: %s)",
                       kv_safe(shown, sizeof shown, key, KV_SHOWN),
                       kv_hint_key(key, 1, hint, sizeof hint), keys);
    }
    q->op = req_ops[o].op;
    q->text = text;
    return 0;
}
