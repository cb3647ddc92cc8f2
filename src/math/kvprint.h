/*
 * kvprint.h - snprintf, vsnprintf and fprintf for the conversions kvcalc's text is made of.
 *
 * Why: an engine run wrote its ~3 KB of text through ~40 fprintf and ~25 snprintf calls,
 * ~60k of its ~325k instructions (callgrind), and printf's code and tables are four pages of
 * libc that a run faults in for them alone (issue 22; /bin/true touches none of them).
 * Nearly every format is %s, %d, %lld or %zu with a width: these functions write those
 * themselves and hand any other call (a float, a flag such as '0' or '+', %x, a length
 * modifier other than l, ll, z) to the C library's vsnprintf or vfprintf whole, with the
 * arguments untouched. So every call writes the bytes and returns the value the C library's
 * function would (tests/test_format.c compares them on every conversion and flag).
 */
#ifndef KV_PRINT_H
#define KV_PRINT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#if defined(__GNUC__) || defined(__clang__)
#define KV_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define KV_PRINTF(f, a)
#endif

int kv_vsnprintf(char *buf, size_t cap, const char *fmt, va_list ap) KV_PRINTF(3, 0);
int kv_snprintf(char *buf, size_t cap, const char *fmt, ...) KV_PRINTF(3, 4);
int kv_fprintf(FILE *f, const char *fmt, ...) KV_PRINTF(2, 3);

#endif
