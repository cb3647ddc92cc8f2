/*
 * kvregex.h - the part of ECMAScript regular expressions that llama.cpp's -ot patterns use
 * (std::regex_search over tensor names, src/llama-model-loader.cpp): literals, ".", escapes
 * (\. \d \w \s and their capitals), classes [a-z0-9_] and [^...], groups (...) and (?:...)
 * with "|", the quantifiers * + ? {m} {m,} {m,n} (a lazy "?" after one changes no search's
 * answer), and the anchors ^ $. Nothing else (back-references, look-arounds) is read: such a
 * pattern is a syntax error, never a guess. Bounded: patterns up to KV_REGEX_MAX bytes and a
 * step budget per search, so a pathological pattern is refused, not slow.
 */
#ifndef KVREGEX_H
#define KVREGEX_H

#include <stddef.h>

#define KV_REGEX_MAX 512          /* bytes of one pattern */
#define KV_REGEX_STEPS 200000L    /* matching steps one search may take */

enum { KV_REGEX_NO = 0, KV_REGEX_YES = 1, KV_REGEX_SYNTAX = -1, KV_REGEX_TOO_COMPLEX = -2 };

/* Whether pattern[0..plen) matches somewhere in text[0..tlen) (regex_search): KV_REGEX_YES,
 * KV_REGEX_NO, KV_REGEX_SYNTAX (an unread construct or a malformed pattern), or
 * KV_REGEX_TOO_COMPLEX (the step budget ran out). */
int kv_regex_search(const char *pattern, size_t plen, const char *text, size_t tlen);

#endif
