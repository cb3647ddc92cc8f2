/*
 * keys.h - the output keys, declared once.
 *
 * Every top-level scalar of the JSON document is one row of kv_keys (keys.c): its name, its
 * unit, which part of the report it reads (and so when it is null) and where. The JSON
 * renderer, --get, --require, the sweep columns and docs/output.md (checked by a test) all
 * read this table.
 */
#ifndef KVCALC_KEYS_H
#define KVCALC_KEYS_H

#include "report.h"

typedef enum {
    KEY_CONST,  /* the same for every run (schema_version, version) */
    KEY_SPEC,   /* a kv_spec member */
    KEY_RESULT, /* a kv_result member */
    KEY_ENGINE, /* a member of one engine's result: null unless that engine was chosen */
    KEY_PLAN,   /* a kv_plan member: null without --target-concurrency */
    KEY_LAYOUTS, /* a kv_layouts member: null without --gpus */
    KEY_LOG      /* a kv_comparison member: null without --from-log (kv_log_keys) */
} key_section;

typedef enum {
    KT_INT,          /* int64_t */
    KT_INT_OR_NULL,  /* int64_t, 0 = unknown: null */
    KT_NUM,          /* double */
    KT_BOOL,         /* int */
    KT_STR,          /* const char *, NULL = null */
    KT_TEXT,         /* a char array in the struct, "" = null */
    KT_DTYPE_BYTES,  /* a kv_dtype, shown as its bytes per element */
    KT_ENGINE_NAME,  /* a kv_engine, shown by name */
    KT_SCHEMA,       /* KV_SCHEMA_VERSION */
    KT_VERSION,      /* KVCALC_VERSION */
    KT_NUM_OR_NULL   /* double, NaN = null */
} key_type;

typedef struct kv_key {
    const char *name;    /* top-level JSON key */
    const char *unit;    /* "bytes", "requests", "tokens", "string", ... */
    key_section section;
    kv_engine engine;    /* KEY_ENGINE: whose result */
    key_type type;
    size_t offset;       /* in the section's struct */
} kv_key;

extern const kv_key kv_keys[];
extern const size_t kv_keys_count;
/* The --from-log document's own top-level keys. Under --from-log a name found in both
 * tables reads this one (kv_cache_tokens, available_kv_bytes, engine_version: the
 * comparison's); --get and --require find keys in either table. */
extern const kv_key kv_log_keys[];
extern const size_t kv_log_keys_count;

#define KV_SCHEMA_VERSION 2

typedef enum { VAL_INT, VAL_NUM, VAL_BOOL, VAL_STR } value_kind;

typedef struct {
    value_kind kind;
    int64_t i;
    double d;
    int b;
    const char *s;
    int is_null; /* JSON null: a section not asked for, or a label not set */
} kv_key_value;

const kv_key *kv_key_find(const char *name);
/* Whether a key holds a number or a boolean (what --require can compare). */
int kv_key_is_numeric(const kv_key *k);
/* The key's value in a report. */
kv_key_value kv_key_get(const kv_key *k, const kv_report *rep);
/* The value as JSON text (strings without quotes or escapes: callers quote them). */
char *kv_key_text(char *buf, size_t cap, kv_key_value v);

#endif
