/*
 * format.h - Python-style number formatting for the renderers.
 *
 * The lesson's calculator formats with Python's format mini-language (":g", ":,.1f",
 * ":,"). These helpers produce the same text: correctly rounded digits of the exact binary
 * value (round-half-even, as the C library's printf rounds, whose digits format.c writes
 * itself where it can), thousands separators on the integer
 * part, and "inf"/"nan" spelled as Python spells them. Each writes a NUL-terminated string
 * into buf (cap bytes) and returns buf; FMT_BUF bytes hold any double.
 */
#ifndef KVCALC_FORMAT_H
#define KVCALC_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#define FMT_BUF 512 /* 309 integer digits + 103 commas + sign, point and decimals fit */

/* f"{v:.{prec}f}" or, with group != 0, f"{v:,.{prec}f}". */
char *fmt_fixed(char *buf, size_t cap, double v, int prec, int group);
/* f"{v:g}". */
char *fmt_g(char *buf, size_t cap, double v);
/* The text's one precision policy: a figure as typed (the lesson's flags) is echoed as typed,
 * fmt_g; a figure kvcalc derived or took from a table (a GPU preset's memory, an estimated or
 * a checkpoint's parameter count) prints with 2 decimals. */
char *fmt_figure(char *buf, size_t cap, double v, int typed);
/* f"{v}" or f"{v:,}" for an integer. */
char *fmt_int(char *buf, size_t cap, int64_t v, int group);
/* f"{v}", returning its length. */
size_t fmt_int_n(char *buf, size_t cap, int64_t v);
/* The shortest decimal that reads back as v (what JSON output needs); integral values
 * below 1e21 print without a fraction or exponent, as JSON integers. */
char *fmt_json_number(char *buf, size_t cap, double v);
/* The same, returning its length (no strlen in the common case of a whole number). */
size_t fmt_json_number_n(char *buf, size_t cap, double v);
/* The shortest decimal that reads back as the finite v, and of those the closest to v:
 * *digits (no trailing zeros) times 10^*exp10 is |v|'s decimal; returns the digit count,
 * 1 to 17 (v = 0: 0 with one digit). Schubfach, in shortest.c. */
int fmt_shortest(double v, uint64_t *digits, int *exp10);

/* User text made safe for one terminal line: control characters (C0, DEL, C1) and bytes
 * that are not well-formed UTF-8 become '?'; longer than `limit` bytes is cut with "..."
 * (limit 0: never). */
const char *text_safe_cut(char *buf, size_t cap, const char *text, size_t limit);
/* The well-formed UTF-8 sequence at s (RFC 3629: no overlong forms, no surrogates, at most
 * U+10FFFF): its length, 1 to 4, and its code point in *cp; 0 when the bytes there are not
 * one (a stray continuation byte, a truncated or overlong sequence). */
size_t utf8_seq(const char *s, unsigned long *cp);

#endif
