/*
 * keys.c - a report's values by field (see keys.h). A field says where its value lives;
 * this picks the part of the report it reads. Renderers read values, they do not compute
 * them.
 */
#include "keys.h"

#include "format.h"

#include <stddef.h>
#include <string.h>

/* The comparison's own field of that name, or NULL. */
static const kv_field *log_field(const char *name)
{
    for (size_t i = 0; i < kv_log_field_count(); i++)
        if (strcmp(kv_log_field_at(i)->name, name) == 0)
            return kv_log_field_at(i);
    return NULL;
}

/* The struct a field reads, or NULL when its part was not computed. */
static const void *part(const kv_field *f, const kv_report *rep)
{
    switch (f->from) {
    case KV_FROM_CONST:
        return "";
    case KV_FROM_SPEC:
        return rep->spec;
    case KV_FROM_RESULT:
        return rep->result;
    case KV_FROM_ENGINE:
        return rep->spec->engine == f->engine ? (const void *)rep->result : NULL;
    case KV_FROM_PLAN:
        return rep->plan;
    case KV_FROM_LAYOUTS:
        return rep->layouts;
    case KV_FROM_LOG:
        return rep->comparison;
    case KV_FROM_WORKLOAD:
        return rep->workload;
    case KV_FROM_METRICS:
        return rep->metrics;
    }
    return NULL;
}

kv_field_value kv_report_value(const kv_field *f, const kv_report *rep)
{
    const kv_field *mine = rep->comparison && f->from != KV_FROM_LOG ? log_field(f->name) : NULL;
    if (mine)
        f = mine; /* under --from-log, the comparison's value of that name */
    return kv_field_get(f, part(f, rep));
}

size_t kv_report_number_text(char *buf, size_t cap, const kv_field *f, const kv_report *rep)
{
    if (rep->comparison || f->from == KV_FROM_CONST)
        return 0;
    const char *at = part(f, rep);
    if (!at)
        return 0;
    at += f->offset + (f->from == KV_FROM_ENGINE ? offsetof(kv_result, engine_space) : 0);
    double d;
    int64_t i;
    int b;
    switch (f->type) { /* as kv_field_get() reads them */
    case KV_F_NUM:
        memcpy(&d, at, sizeof d);
        return fmt_json_number_n(buf, cap, d);
    case KV_F_INT:
        memcpy(&i, at, sizeof i);
        return fmt_int_n(buf, cap, i);
    case KV_F_BOOL:
        memcpy(&b, at, sizeof b);
        memcpy(buf, b ? "true" : "false", b ? 5 : 6);
        return b ? 4 : 5;
    default:
        return 0;
    }
}

/* Copies text into buf (cap >= 1), cut to fit: printf costs a sweep hundreds of
 * instructions a cell for what is a copy. */
static char *copy(char *buf, size_t cap, const char *text)
{
    size_t n = strlen(text);
    if (n >= cap)
        n = cap - 1;
    memcpy(buf, text, n);
    buf[n] = '\0';
    return buf;
}

size_t kv_value_text_n(char *buf, size_t cap, const kv_field_value *v)
{
    if (!v->is_null && v->kind == KV_VAL_NUM)
        return fmt_json_number_n(buf, cap, v->d);
    if (!v->is_null && v->kind == KV_VAL_INT)
        return fmt_int_n(buf, cap, v->i);
    return strlen(kv_value_text(buf, cap, *v));
}

char *kv_value_text(char *buf, size_t cap, kv_field_value v)
{
    if (v.is_null)
        return copy(buf, cap, "null");
    switch (v.kind) {
    case KV_VAL_INT:
        return fmt_int(buf, cap, v.i, 0);
    case KV_VAL_NUM:
        return fmt_json_number(buf, cap, v.d);
    case KV_VAL_BOOL:
        return copy(buf, cap, v.b ? "true" : "false");
    case KV_VAL_STR:
        return copy(buf, cap, v.s);
    }
    return buf;
}
