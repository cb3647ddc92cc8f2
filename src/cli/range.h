/*
 * range.h - the ranges of --sweep KEY=A..B+S (arithmetic) and KEY=A..B*F (geometric), exact
 * and allocation-free.
 *
 * A range is a few numbers, never an array: arithmetic values are computed from their index
 * (A + i*S), so a billion-value range costs nothing until it is walked, and its size is known
 * in O(1) before the first row. The caller parses the endpoints itself (each flag has its own
 * syntax and bounds); this module parses only the step and owns every rule below.
 *
 * Integer keys (int64_t):
 *   A..B+S  S must be an integer > 0, written as a plain decimal ("3", "1e3" and "2.0" are
 *           integers; "0.5" is not). Values A, A+S, ... <= B in exact integer arithmetic:
 *           nothing is rounded through a double, so a range ending at INT64_MAX stays
 *           positive and 1000000000000..1000000000010+1 ends at B, not B+1. The count is
 *           (B-A)/S + 1 in uint64_t, which holds every B-A, and S may be up to 2^64-1.
 *   A..B*F  F must be finite and > 1; A >= 1 (a geometric range from 0 or below cannot
 *           grow). Each value is next = max(prev + 1, round(prev * F)), round() halving away
 *           from zero: the max makes values strictly increasing, so 1..100*1.5 is
 *           1,2,3,5,8,12,18,27,41,62,93 and never repeats 2. An integer F (2, 10) multiplies
 *           exactly; another F multiplies in double, exact below 2^53. The range stops at the
 *           first value > B, and a product past INT64_MAX is caught, never wrapped. Values
 *           depend on the one before, so this range is walked, not indexed; counting it may
 *           walk it, but stops past the caller's limit and skips the stretch where F is so
 *           close to 1 that +1 wins, so even 1..10^18*1.000000001 is counted at once.
 * Number keys (double):
 *   A..B+S  S finite > 0. value_i = A + i*S from i, never accumulated, so there is no drift.
 *           The count is floor((B-A)/S + 1e-9) + 1: the 1e-9 (of a step) forgives decimal
 *           steps that are not exact in binary, so 0.1..0.3+0.1 is 0.1, 0.2, 0.3. The last
 *           value, if it lands a hair above B, is written as B, so every value is in [A, B].
 *           A step below max(|A|,|B|) * 2^-50 is refused (values would repeat in double
 *           precision) unless the range has over 2^48 values, which any caller refuses as
 *           too many anyway; counts over 2^48 are approximate.
 *   A..B*F  A > 0, F finite >= 1 + 1e-10 (a finer F cannot be told apart from the 1e-12
 *           tolerance). value_i = A * pow(F, i), included while <= B * (1 + 1e-12), a value
 *           above B written as B. The count is exact: a logarithm guesses it, the inclusion
 *           test itself settles it.
 * Both: A > B is an empty range, an error. Values are strictly increasing and inside [A, B].
 *
 * Errors: functions return 0 or -1 and write one line into err (cap bytes), without the
 * "kvcalc: " prefix. User text in it has control bytes replaced by '?'; a message longer
 * than the buffer ends with "...", so a cut is never silent.
 */
#ifndef KVCALC_RANGE_H
#define KVCALC_RANGE_H

#include <stddef.h>
#include <stdint.h>

typedef enum { KV_RANGE_INT, KV_RANGE_NUM } kv_range_type;

/* Filled by kv_range_init_*; read the fields, do not write them. */
typedef struct {
    kv_range_type type;
    char op;             /* '+' or '*' */
    int64_t ia, ib;      /* KV_RANGE_INT endpoints */
    uint64_t istep;      /* KV_RANGE_INT '+': S */
    int64_t ifactor;     /* KV_RANGE_INT '*': F when F is an integer (exact products), else 0 */
    double da, db;       /* KV_RANGE_NUM endpoints */
    double dstep;        /* S or F as a double (every range but INT '+') */
} kv_range;

/* Splits "A..B+S" / "A..B*F" into the endpoint texts a and b, the op ('+' or '*') and the
 * step text. The op is the first '+' or '*' after at least one character of B that is not an
 * exponent sign, so "-5..-1+1" and "1e-3..1e+2*10" split as meant. A part that does not fit
 * its buffer is an error, never cut. */
int kv_range_split(const char *item, char *a, size_t acap, char *b, size_t bcap, char *op,
                   char *step, size_t scap, char *err, size_t errcap);

/* Checks the rules above and fills r. op is '+' or '*'; step is the text after it, parsed
 * strictly: [+-]digits[.digits][(e|E)[+-]digits], no hex, inf, nan or spaces. item (may be
 * NULL) is the whole range as typed, for the message. On error r is left empty (count 0, no
 * values), so a forgotten return code cannot walk garbage. */
int kv_range_init_int(kv_range *r, int64_t a, int64_t b, char op, const char *step,
                      const char *item, char *err, size_t cap);
int kv_range_init_num(kv_range *r, double a, double b, char op, const char *step,
                      const char *item, char *err, size_t cap);

/* The exact number of values, or limit + 1 when there are more than limit (limit is taken
 * as at most UINT64_MAX - 1). Never a smaller number that looks valid: a caller that refuses
 * grids over 10^10 points passes 10^10. O(1), except INT '*' which may walk up to limit
 * values. */
uint64_t kv_range_count(const kv_range *r, uint64_t limit);

/* Walks the values in increasing order, O(1) each. The iterator holds a copy of the range.
 * kv_range_next returns 1 and writes the value (*iv for KV_RANGE_INT, *dv for KV_RANGE_NUM;
 * the other pointer may be NULL), or returns 0 when done. kv_range_begin again restarts. */
typedef struct {
    kv_range r;
    uint64_t i, last; /* indexed ranges: the next index and the last one */
    int64_t next;     /* INT '*': the next value */
    int done;
} kv_range_iter;

void kv_range_begin(const kv_range *r, kv_range_iter *it);
int kv_range_next(kv_range_iter *it, int64_t *iv, double *dv);

#endif
