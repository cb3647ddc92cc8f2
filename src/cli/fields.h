/*
 * fields.h - the data tables that name kvcalc's inputs and outputs.
 *
 * Inputs: one row per kv_spec member, with its command-line flag, its JSON key, its kind,
 * its lower bound and its help text. The argument parser, --help, the JSON "inputs" echo
 * and error messages all read this one table, so a new input is one new row.
 *
 * Outputs: one row per top-level scalar of the JSON document, with a getter. The JSON
 * renderer, --get and docs/output.md (checked by a test) share it.
 */
#ifndef KVCALC_FIELDS_H
#define KVCALC_FIELDS_H

#include "kvcalc.h"

#include <stddef.h>

typedef enum {
    IN_INT,     /* int64_t */
    IN_NUM,     /* double */
    IN_DTYPE,   /* kv_dtype, by name from the dtype table */
    IN_ENUM,    /* int, by name from `choices` */
    IN_FLAG,    /* int set to `flag_value`; the option takes no value */
    IN_VERSION  /* int: the minor number of a "0.MINOR[.PATCH]" version */
} input_kind;

typedef struct {
    const char *name;
    int value;
} enum_choice;

typedef enum { GROUP_MODEL, GROUP_VLLM } input_group;

typedef struct {
    const char *flag;    /* long option without "--": "kv-heads" */
    const char *alias;   /* another long option for the same input, or NULL */
    const char *key;     /* JSON key: "kv_heads" */
    input_kind kind;
    size_t offset;       /* of the member in kv_spec */
    double min;          /* lower bound (IN_INT, IN_NUM) */
    int min_exclusive;   /* 1: value must be > min; 0: >= min */
    double max;          /* upper bound, inclusive; 0 = only the type's own */
    const enum_choice *choices; /* IN_ENUM: NULL-terminated */
    int flag_value;      /* IN_FLAG */
    int optional;        /* a value below min means "not given": JSON null, help "auto" */
    input_group group;   /* GROUP_VLLM: only with --engine vllm */
    kv_status error;     /* the status kv_compute() returns when this input is to blame */
    const char *meta;    /* placeholder in --help: "N", "GIB", "DTYPE" */
    const char *help;    /* one line for --help */
} input_field;

#define KV_MAX_INPUTS 64 /* the parser keeps a "given" mark per input */

extern const input_field kv_inputs[];
extern const size_t kv_inputs_count;

const input_field *kv_input_by_flag(const char *flag, size_t len);
const input_field *kv_input_by_status(kv_status st);

/* Typed access to a kv_spec member described by an input row. */
int64_t *input_int(kv_spec *s, const input_field *f);
double *input_num(kv_spec *s, const input_field *f);
kv_dtype *input_dtype(kv_spec *s, const input_field *f);
int *input_enum(kv_spec *s, const input_field *f);
/* The value of an input as text, as the JSON "inputs" object and --help show it
 * (a JSON number, a name, or "null" for an optional input left unset). */
char *input_text(char *buf, size_t cap, const kv_spec *s, const input_field *f);
/* Whether the input's text is a JSON string (names) rather than a number/bool/null. */
int input_is_string(const kv_spec *s, const input_field *f);
/* The size of the member an input row describes. */
size_t input_size(const input_field *f);

typedef enum { OUT_INT, OUT_NUM, OUT_BOOL, OUT_STR } output_kind;

typedef struct {
    output_kind kind;
    int64_t i;       /* OUT_INT */
    double d;        /* OUT_NUM */
    int b;           /* OUT_BOOL */
    const char *s;   /* OUT_STR */
    int is_null;     /* the value is JSON null (a label that is not set) */
} output_value;

typedef struct {
    const char *key;  /* top-level JSON key */
    const char *unit; /* "bytes", "requests", "tokens", ... */
    output_value (*get)(const kv_spec *s, const kv_result *r);
} output_field;

extern const output_field kv_outputs[];
extern const size_t kv_outputs_count;

const output_field *kv_output_by_key(const char *key);
/* Whether a key holds a number or a boolean (what --require can compare). */
int output_is_numeric(const output_field *f);
/* The value as JSON text (strings without quotes: callers quote them where needed). */
char *output_text(char *buf, size_t cap, output_value v);

#define KV_SCHEMA_VERSION 1

#endif
