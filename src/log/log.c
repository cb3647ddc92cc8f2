/*
 * log.c - reading a startup log: a bounded line reader that matches every engine's line
 * patterns (each engine's descriptor holds its own, engine.h says how they read) into one
 * candidate per engine, and picks the engine whose KV lines came last.
 *
 * A pattern may start anywhere in the line, but never inside a word, and everything in it
 * must match: a number cut short or a unit missing is no match. That is the strictness a
 * log needs: prefixes, ranks and colours vary; the engine's words do not.
 */
#include "engine.h"
#include "kvprint.h"
#include "lines.h"

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CAPS KV_LOG_MAX_CAPS

static const kv_engine_log *log_of(int e)
{
    const kv_engine_desc *d = kv_engine_get((kv_engine)e);
    return d ? d->log : NULL;
}

const char *kv_log_field_name(kv_engine e, int f)
{
    const kv_engine_log *l = log_of(e);
    return l && f >= 0 && f < l->n_fields ? l->field_names[f] : NULL;
}

int kv_log_fields(kv_engine e)
{
    const kv_engine_log *l = log_of(e);
    return l ? l->n_fields : 0;
}

/* ---- matching ------------------------------------------------------------------------- */

typedef struct {
    double num;
    const char *str; /* %s: where it starts (num unused), else NULL */
    size_t len;
} capture;

static int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int is_word(char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

/* Digits with optional thousands commas ("93,872"); returns the end, or NULL. */
static const char *read_int(const char *s, double *out)
{
    const char *p = s;
    double v = 0;
    if (!is_digit(*p))
        return NULL;
    for (; is_digit(*p) || (*p == ',' && is_digit(p[1]) && is_digit(p[2]) && is_digit(p[3]) &&
                            !is_digit(p[4]));
         p++)
        if (*p != ',')
            v = v * 10 + (*p - '0');
    if (*p == '.' && is_digit(p[1]))
        return NULL; /* a decimal is not an integer */
    if (v > 9007199254740992.0)
        return NULL; /* beyond 2^53, no count an engine prints: not read as one (a double
                        would carry it inexactly) */
    *out = v;
    return p;
}

/* [-]digits[.digits] (at most 40 characters: a log's figures are short). */
static const char *read_decimal(const char *s, double *out)
{
    char buf[48];
    size_t n = 0;
    const char *p = s;
    if (*p == '-')
        buf[n++] = *p++;
    if (!is_digit(*p))
        return NULL;
    int point = 0;
    while ((is_digit(*p) || (*p == '.' && !point && is_digit(p[1]))) && n < 40) {
        point |= *p == '.';
        buf[n++] = *p++;
    }
    if (is_digit(*p) || *p == '.')
        return NULL;
    buf[n] = '\0';
    *out = strtod(buf, NULL);
    return p;
}

/* A decimal and its unit, in bytes ("79.15GiB", "27.13 GB", "512.00 MiB", "0 B": Go's
 * HumanBytes2 prints B and KiB below a MiB). */
static const char *read_bytes(const char *s, double *out)
{
    static const struct {
        const char *unit;
        double scale;
    } units[] = {{"GiB", KV_GIB}, {"GB", KV_GIB}, {"MiB", KV_MIB}, {"MB", KV_MIB},
                 {"KiB", 1024.0}, {"B", 1.0}};
    double v;
    const char *p = read_decimal(s, &v);
    if (!p)
        return NULL;
    while (is_blank(*p))
        p++;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        size_t n = strlen(units[i].unit);
        if (strncmp(p, units[i].unit, n) == 0 && !is_word(p[n])) {
            *out = v * units[i].scale;
            return p + n;
        }
    }
    return NULL;
}

/* Matches pattern p at s (the line ends at its NUL); fills caps[n...]. Returns 1, 0, or -1
 * when the text after a "%*" is nowhere in the rest of the line (then no later start can
 * match either: a line with thousands of starts stays linear). */
static int match_at(const char *p, const char *s, capture *caps, int n)
{
    while (*p) {
        if (*p == ' ') { /* any run of blanks, or none */
            while (is_blank(*s))
                s++;
            p++;
            continue;
        }
        if (*p != '%') {
            if (*p != *s)
                return 0;
            p++, s++;
            continue;
        }
        char conv = p[1];
        p += 2;
        if (conv == '*') { /* the rest may start anywhere further on */
            for (; *s; s++)
                if (match_at(p, s, caps, n) == 1)
                    return 1;
            return -1; /* nor after a later start of the pattern: stop looking */
        }
        if (n >= MAX_CAPS)
            return 0;
        capture *c = &caps[n++];
        c->str = NULL;
        if (conv == 's') { /* up to the pattern's next character (a blank: any blank) */
            const char *start = s;
            while (*s && (*p == ' ' ? !is_blank(*s) : *s != *p))
                s++;
            if (s == start || s - start > 255 || *start == '-') /* engine.h: the next flag */
                return 0;
            c->str = start;
            c->len = (size_t)(s - start);
            continue;
        }
        s = conv == 'n' ? read_int(s, &c->num)
            : conv == 'f' ? read_decimal(s, &c->num)
                          : read_bytes(s, &c->num);
        if (!s)
            return 0;
    }
    return 1;
}

/* The pattern's leading literal: where a match can start. */
static size_t anchor_len(const char *p)
{
    size_t n = 0;
    while (p[n] && p[n] != '%' && p[n] != ' ')
        n++;
    return n;
}

/* Which byte pairs a line holds, hashed into 4,096 bits: a pattern whose first two bytes
 * the line lacks is skipped without a search. Nearly every line of a long log holds none
 * of the patterns; this keeps a gigabyte to seconds. */
#define PAIR_BITS 4096u
typedef struct {
    unsigned char bit[PAIR_BITS / 8];
} pair_filter;

static unsigned pair_hash(unsigned char a, unsigned char b)
{
    return ((unsigned)a * 31u + b) % PAIR_BITS;
}

static void pair_fill(pair_filter *f, const char *line)
{
    memset(f->bit, 0, sizeof f->bit);
    for (const unsigned char *u = (const unsigned char *)line; u[0] && u[1]; u++) {
        unsigned h = pair_hash(u[0], u[1]);
        f->bit[h / 8] |= (unsigned char)(1u << (h % 8));
    }
}

static int pair_may_hold(const pair_filter *f, const char *p)
{
    unsigned h = pair_hash((unsigned char)p[0], (unsigned char)p[1]);
    return f->bit[h / 8] >> (h % 8) & 1u;
}

/* Finds pattern p anywhere in line (never inside a word); returns captures or -1. */
static int match_line(const char *p, const char *line, const pair_filter *f, capture *caps)
{
    char anchor[64];
    size_t an = anchor_len(p);
    if (an == 0 || an >= sizeof anchor || (f && an >= 2 && !pair_may_hold(f, p)))
        return -1; /* every pattern starts with a short literal */
    memcpy(anchor, p, an);
    anchor[an] = '\0';
    for (const char *at = strstr(line, anchor); at; at = strstr(at + 1, anchor)) {
        if (at > line && is_word(p[0]) && is_word(at[-1]))
            continue;
        int m = match_at(p, at, caps, 0);
        if (m < 0)
            break;
        if (m == 1) {
            int n = 0;
            for (const char *q = p; (q = strchr(q, '%')) != NULL; q += 2)
                n += q[1] != '*';
            return n;
        }
    }
    return -1;
}

/* Replaces by spaces, in line, every region a `nested` opener starts: its text after the
 * opener, up to the bracket that closes the opener's last one. Returns 1 when there was
 * one. */
static int blank_nested(char *line, const char *const *nested)
{
    int any = 0;
    size_t n = strlen(line);
    for (const char *const *o = nested; *o; o++) {
        char *at = strstr(line, *o);
        if (!at)
            continue;
        any = 1;
        size_t ol = strlen(*o);
        char open = (*o)[ol - 1], close = open == '{' ? '}' : open == '(' ? ')' : ']';
        int depth = 1;
        for (size_t k = (size_t)(at - line) + ol; k < n && depth > 0; k++) {
            depth += line[k] == open ? 1 : line[k] == close ? -1 : 0;
            if (depth > 0)
                line[k] = ' ';
        }
    }
    return any;
}

/* ---- storing what matched ------------------------------------------------------------- */

static void copy_text(char *dst, size_t cap, const capture *c)
{
    size_t n = c->len < cap - 1 ? c->len : cap - 1;
    const char *s = c->str;
    if (n >= 2 && (s[0] == '\'' || s[0] == '"') && s[n - 1] == s[0]) { /* 'false' */
        s++;
        n -= 2;
    }
    memcpy(dst, s, n);
    dst[n] = '\0';
}

static void set_field(kv_log_values *v, int f, double x, unsigned flags)
{
    if (f < 0 || f >= KV_LOG_MAX_FIELDS)
        return;
    if (flags & KV_MIN && v->present[f] && v->v[f] <= x)
        return;
    if (flags & KV_MAX && v->present[f] && v->v[f] >= x)
        return;
    if (flags & KV_SUM && !(x >= 0))
        return; /* a sum of buffers: a negative one is not a size, and is not added */
    if (flags & KV_SUM && v->present[f])
        x += v->v[f];
    v->v[f] = x;
    v->present[f] = 1;
}

/* A flash-attention (or yes/no) word: "0"/"1", "auto", "enabled", "disabled", "on", "off",
 * "true", "false": 0 off, 1 on, 2 auto. */
enum { FLASH_OFF, FLASH_ON, FLASH_AUTO };
static int flash_mode(const char *t, int *out)
{
    static const struct {
        const char *name;
        int mode;
    } modes[] = {{"0", FLASH_OFF}, {"1", FLASH_ON},         {"auto", FLASH_AUTO},
                 {"on", FLASH_ON}, {"off", FLASH_OFF},      {"enabled", FLASH_ON},
                 {"disabled", FLASH_OFF}, {"true", FLASH_ON}, {"false", FLASH_OFF}};
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
        if (strcmp(t, modes[i].name) == 0)
            return *out = modes[i].mode, 0;
    return -1;
}

/* The sliding-window counterpart of a cache field; KV_TO_SKIP for the fields that are the
 * main cache's (the total, the types, the sequences). */
static int swa_field(const kv_engine_log *l, int f, int which)
{
    for (size_t i = 0; i < l->n_swa_pairs; i++)
        if (l->swa_pairs[i][0] == f)
            return l->swa_pairs[i][which];
    return KV_TO_SKIP;
}

/* The text members a conversion may fill, by TO_ value. */
static const struct {
    int to;
    size_t offset, cap;
} text_members[] = {
#define TM(t, m) {t, offsetof(kv_log_values, m), sizeof(((kv_log_values *)0)->m)}
    TM(KV_TO_VERSION, version), TM(KV_TO_MODEL, model), TM(KV_TO_SERVED, served),
    TM(KV_TO_DTYPE, dtype),
    TM(KV_TO_KV_DTYPE, kv_dtype), TM(KV_TO_QUANT, quantization), TM(KV_TO_TYPE_K, type_k),
    TM(KV_TO_TYPE_V, type_v),
#undef TM
};

static void put_text(kv_log_values *v, int to, const char *text)
{
    for (size_t i = 0; i < sizeof text_members / sizeof text_members[0]; i++) {
        if (text_members[i].to != to)
            continue;
        char *dst = (char *)v + text_members[i].offset;
        size_t n = strlen(text);
        if (n >= text_members[i].cap)
            n = text_members[i].cap - 1; /* a cut name is still shown; it is not matched on */
        memcpy(dst, text, n);
        dst[n] = '\0';
    }
}

static void store(const kv_engine_log *l, kv_log_values *v, const kv_log_pattern *row,
                  const capture *caps, int n)
{
    char text[256];
    int swa = (row->flags & KV_CACHE) && v->swa_next;
    if (row->flags & KV_CONST && n + 1 < MAX_CAPS)
        set_field(v, row->to[n], row->to[n + 1], 0);
    for (int i = 0; i < n; i++) {
        int to = row->to[i];
        if (swa)
            to = to == KV_TO_TYPE_K || to == KV_TO_TYPE_V ? KV_TO_SKIP
                                                          : swa_field(l, to, v->swa_next);
        if (to == KV_TO_WEIGHTS_ROUNDED)
            to = l->weights_field >= 0 && !v->present[l->weights_field] ? l->weights_field
                                                                        : KV_TO_SKIP;
        if (to == KV_TO_SKIP)
            continue;
        if (to < KV_LOG_MAX_FIELDS) {
            set_field(v, to, caps[i].num, row->flags);
            continue;
        }
        if (caps[i].str)
            copy_text(text, sizeof text, &caps[i]);
        else
            snprintf(text, sizeof text, "%.0f", caps[i].num);
        int mode;
        if (to == KV_TO_FLASH && flash_mode(text, &mode) == 0)
            set_field(v, l->flash_field, mode, 0);
        else if (to == KV_TO_UNIFIED && flash_mode(text, &mode) == 0) /* true/false, 1/0 */
            set_field(v, l->unified_field, mode != FLASH_OFF, 0);
        else if (to == KV_TO_ERA_V)
            kv_snprintf(v->era, sizeof v->era, "V%d", (int)(caps[i].num < 10 ? caps[i].num : 9));
        else
            put_text(v, to, text);
    }
    if (row->flags & KV_CACHE)
        v->swa_next = 0;
}

/* swa_next's values while a draft model's lines run (after KV_DRAFT_ON), and while an MTP
 * draft context's run (after KV_MTP_ON: its cache line is kept, in the fourth column) */
#define MTP_LINES 3
#define DRAFT_LINES 4

static void apply_row(const kv_engine_log *l, kv_log_values *v, const kv_log_pattern *row,
                      const capture *caps, int n, long line_no)
{
    if (v->swa_next == DRAFT_LINES || v->swa_next == MTP_LINES) {
        if (row->flags & KV_DRAFT_OFF)
            v->swa_next = 0;
        else if (!(row->flags & KV_ALWAYS) && !(v->swa_next == MTP_LINES && row->flags & KV_CACHE))
            return; /* the draft's metadata, context and cache are not the model's */
    }
    /* a new startup: forget the last one - unless the KV lines came before any line that
     * opens a startup (a report that quotes the KV lines above the settings: club-3090's
     * bench template), which are then this startup's own */
    if (row->flags & KV_START && v->kv_lines > 0 && v->last_start_line > 0 &&
        v->last_kv_line > v->last_start_line) {
        int startups = v->startups;
        char version[sizeof v->version]; /* but the release: a server that loads another
                                            model states it once, at its own start */
        memcpy(version, v->version, sizeof version);
        memset(v, 0, sizeof *v);
        memcpy(v->version, version, sizeof version);
        v->startups = startups + 1;
    }
    if (v->startups == 0)
        v->startups = 1;
    if (row->flags & KV_START)
        v->last_start_line = line_no;
    store(l, v, row, caps, n);
    if (row->era)
        kv_snprintf(v->era, sizeof v->era, "%s", row->era);
    if (row->flags & KV_SWA_ON)
        v->swa_next = 1;
    if (row->flags & KV_INDEX_ON)
        v->swa_next = 2;
    if (row->flags & KV_SWA_OFF)
        v->swa_next = 0;
    if (row->flags & KV_LINE) {
        v->kv_lines++;
        v->last_kv_line = line_no;
    }
    if (row->flags & KV_DRAFT_ON)
        v->swa_next = DRAFT_LINES;
    if (row->flags & KV_MTP_ON)
        v->swa_next = MTP_LINES;
}

/* ---- cleaning a line ------------------------------------------------------------------ */

/* Removes ANSI escapes (CSI "ESC [ ... final", and two-byte ones) and everything up to the
 * last carriage return that is followed by text (a progress bar redrawn in place). */
static size_t strip_escapes(char *s, size_t len)
{
    size_t out = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == 0x1b) {
            if (i + 1 < len && s[i + 1] == '[') {
                i += 2;
                while (i < len && !((unsigned char)s[i] >= 0x40 && (unsigned char)s[i] <= 0x7e))
                    i++;
            } else {
                i++;
            }
            continue;
        }
        if (c == '\r') {
            if (i + 1 < len)
                out = 0;
            continue;
        }
        s[out++] = c == '\0' ? '?' : (char)c; /* a NUL must not end the line early */
    }
    s[out] = '\0';
    return out;
}

/* Length of a known prefix at s, or 0: "[...]" (timestamps, "[gpu_worker.py:1]"),
 * "(VllmWorker rank=0 pid=1)", "INFO", "WARNING", "INFO 07-22", "10:00:00", a Docker
 * timestamp "2025-01-01T10:00:00.123Z", llama.cpp's "0.10.095.546 W". */
static size_t prefix_len(const char *s)
{
    static const char *const levels[] = {"DEBUG", "INFO", "WARNING", "WARN", "ERROR", "I", "W",
                                         "E", "D"};
    char close = s[0] == '[' ? ']' : s[0] == '(' ? ')' : 0;
    if (close) {
        const char *e = strchr(s, close);
        return e && e - s < 200 ? (size_t)(e - s + 1) : 0;
    }
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++) {
        size_t n = strlen(levels[i]);
        if (strncmp(s, levels[i], n) == 0 && (s[n] == ' ' || s[n] == ':'))
            return n + 1;
    }
    /* a date, a time or a counter: digits and - : . T Z , only, then a blank */
    size_t n = 0;
    while (is_digit(s[n]) || (n > 0 && strchr("-:.TZ,/", s[n]) && s[n] != '\0'))
        n++;
    return n > 0 && is_digit(s[0]) && (s[n] == ' ' || s[n] == '\t') && n >= 4 ? n : 0;
}

char *kv_log_clean(char *line, size_t *len)
{
    *len = strip_escapes(line, *len);
    char *s = line;
    for (int guard = 0; guard < 16; guard++) {
        while (is_blank(*s))
            s++;
        size_t n = prefix_len(s);
        if (n == 0)
            break;
        s += n;
    }
    while (is_blank(*s))
        s++;
    *len -= (size_t)(s - line);
    return s;
}

static int wanted(const uint64_t *only, int id);

/* ---- the reader ----------------------------------------------------------------------- */

void kv_log_init(kv_log *lg)
{
    memset(lg, 0, sizeof *lg);
    lg->engine = KV_ENGINE_COUNT;
}

/* Feeds one line, trying only the patterns whose bit `only` has set (NULL: every pattern;
 * a pattern's bit is its place in the engines' tables, counted across them). */
static void feed(kv_log *lg, const char *line, size_t len, const uint64_t *only)
{
    char *buf = lg->scratch;
    capture caps[MAX_CAPS];
    lg->lines++;
    if (len > KV_LOG_LINE_MAX) {
        lg->overlong++;
        return;
    }
    memcpy(buf, line, len);
    buf[len] = '\0';
    pair_filter f;
    /* a process prefix holds what the cleaning drops (a rank's name): KV_RAW patterns see the
     * line as it came, and only lines that open such a prefix early pay for it */
    size_t head = len < 80 ? len : 80; /* vLLM's "(EngineCore pid=...)", SGLang's "[... TP1]" */
    const char *paren = memchr(buf, '(', head);
    if (!paren)
        paren = memchr(buf, '[', head);
    if (paren) {
        if (!only)
            pair_fill(&f, buf);
        for (int e = 0, id = 0; e < KV_ENGINE_COUNT; e++) {
            const kv_engine_log *l = log_of(e);
            for (size_t i = 0; l && i < l->n_patterns; i++, id++) {
                if (!(l->patterns[i].flags & KV_RAW) || !wanted(only, id))
                    continue;
                int n = match_line(l->patterns[i].pat, buf, only ? NULL : &f, caps);
                if (n >= 0)
                    apply_row(l, &lg->cand[e], &l->patterns[i], caps, n, lg->lines);
            }
        }
    }
    char *s = kv_log_clean(buf, &len);
    if (!only) /* the index already chose the patterns to try: the filter would not help */
        pair_fill(&f, s);
    /* first the whole line (engines with no nested configs, and the patterns of nested
     * keys), then the line with the nested configs blanked out, for the other patterns of
     * the engines that have them: their keys are another model's */
    int blanked = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (int e = 0, id = 0; e < KV_ENGINE_COUNT; e++) {
            const kv_engine_log *l = log_of(e);
            for (size_t i = 0; l && i < l->n_patterns; i++, id++) {
                unsigned fl = l->patterns[i].flags;
                int outer = l->nested && !(fl & KV_NESTED);
                if (fl & KV_RAW || outer != pass || (pass == 1 && !blanked) || !wanted(only, id))
                    continue;
                int n = match_line(l->patterns[i].pat, s, only ? NULL : &f, caps);
                if (n >= 0)
                    apply_row(l, &lg->cand[e], &l->patterns[i], caps, n, lg->lines);
            }
        }
        for (int e = 0; pass == 0 && e < KV_ENGINE_COUNT; e++) {
            const kv_engine_log *l = log_of(e);
            if (l && l->nested)
                blanked |= blank_nested(s, l->nested);
        }
        if (pass == 0 && !blanked) /* nothing nested: the outer patterns on the line itself */
            blanked = 1;
    }
}

void kv_log_feed(kv_log *lg, const char *line, size_t len)
{
    feed(lg, line, len, NULL);
}

/* ---- the index: which patterns a line can hold -------------------------------------- */

/* A long log is nearly all lines no pattern matches (requests, throughput, warnings), and
 * trying ~300 patterns on each is what made reading cost 70,000 instructions a line. Every
 * pattern has words it must hold (runs of its literal bytes with no blank and no conversion
 * in them: the matcher takes those bytes one after another). The reader picks one key word
 * of four bytes or more per pattern and reads only every second 3-byte window of a line:
 * of two neighbouring windows of such a word (the pair least like prose), wherever the word
 * starts, one is at an even place.
 * A window's hash picks a byte of a 32 KiB table (in the L1 cache); a set byte sends the
 * place to the check of the words there, and a pattern is tried only when the line holds
 * every word of it. A pattern with no word of four bytes is checked word by word on
 * every line. The cleaning only drops bytes from a line's start or blanks nested regions,
 * so a word the cleaned line holds is in the raw line too, except where the cleaning
 * joins or rewrites bytes: an ANSI escape taken out of a word, a NUL made '?'. A line
 * holding one of those is tried against every pattern, as before. (A carriage return only
 * drops what comes before it: the text after it is the raw line's own.) The tests read
 * every log of tests/logs, and random changes of them, both ways. After samples of the log's
 * own lines (IX_SAMPLE_FIRST below) the key words and windows are chosen again as the least
 * met there, where the first choice met a server's own lines (issue 22: 9.1 -> 7.9
 * instructions a byte of a startup and 57 MB of vLLM's throughput lines). */
#define IX_MAX 512   /* patterns, all engines together; more: no index (every line, all) */
#define IX_WORDS (IX_MAX / 64)
#define IX_BITS 15   /* the table: 2^15 bytes */
#define IX_PROBES (2 * IX_MAX) /* windows: two per key word */

typedef struct {
    const char *word; /* a key word, len bytes */
    unsigned len;
    unsigned first, n; /* its patterns: ids[first .. first + n) */
} ix_key;

typedef struct {
    unsigned hash; /* of the window */
    unsigned key;  /* ix_key index */
    unsigned at;   /* where the window starts in the key word */
} ix_probe;

typedef struct {
    int ok;                              /* 0: the index is not used (too many patterns) */
    size_t n_keys, n_probes, n_short;
    unsigned char table[1u << IX_BITS];  /* 1: some probe has this hash */
    uint16_t first[1u << IX_BITS];       /* the first probe of the hash, where table has 1 */
    ix_key keys[IX_MAX];
    int ids[IX_MAX];                     /* patterns, by key word */
    const char *pats[IX_MAX];            /* each pattern's text, by id */
    ix_probe probes[IX_PROBES];          /* by hash */
    int short_ids[IX_MAX];               /* patterns without a key word */
    const char *short_word[IX_MAX];      /* ... and their longest word, tried first (the
                                            likeliest to be missing: "):" of llama.cpp's
                                            state line, not "R") */
    unsigned short_len[IX_MAX];
} log_index;

static int wanted(const uint64_t *only, int id)
{
    return !only || (only[id / 64] >> (id % 64) & 1u);
}

static void mark(uint64_t *mask, int id)
{
    mask[id / 64] |= (uint64_t)1 << (id % 64);
}

/* A word of p (a run of literal bytes) at p, or the next one: its start, *len its length
 * (0: no more words). */
static const char *next_word(const char *p, unsigned *len)
{
    for (;;) {
        if (*p == '%')
            p += p[1] ? 2 : 1;
        else if (*p == ' ')
            p++;
        else
            break;
    }
    const char *s = p;
    while (*p && *p != ' ' && *p != '%')
        p++;
    *len = (unsigned)(p - s);
    return s;
}

/* The word of p most likely to be rare in other lines: the longest, a word of four bytes
 * or more with a byte other than a letter counting 3 more ("size:" before "cache", which
 * "KV cache usage" holds too). */
static unsigned hash3(const unsigned char *s);

/* With a sample of the log (seen: how often each window hash came up at an even place of
 * its lines, which is how often a probe of that hash would send the scan to its check), the
 * two windows of a word of len >= 4 the sample met least: the least seen at an even place of
 * the word and the least seen at an odd one (any two of different parity do: wherever the
 * word starts in a line, one of them is at an even place). Returns the sum of their counts,
 * the checks the word would have cost over the sample. */
static unsigned long seen_windows(const uint16_t *seen, const unsigned char *w, unsigned len,
                                  unsigned at[2])
{
    unsigned long best[2] = {0, 0};
    int found[2] = {0, 0};
    for (unsigned k = 0; k + 3 <= len; k++) {
        unsigned long c = seen[hash3(w + k)];
        unsigned par = k & 1u;
        if (!found[par] || c < best[par]) {
            best[par] = c;
            at[par] = k;
            found[par] = 1;
        }
    }
    return best[0] + best[1];
}

static const char *key_word(const char *p, unsigned *len, const uint16_t *seen)
{
    const char *best = NULL;
    unsigned best_score = 0, n;
    unsigned long best_cost = 0;
    *len = 0;
    if (seen) { /* the word the sample met least, among those of four bytes or more */
        for (const char *w = next_word(p, &n); n > 0; w = next_word(w + n, &n)) {
            unsigned at[2];
            unsigned long cost = n >= 4 ? seen_windows(seen, (const unsigned char *)w, n, at) : 0;
            if (n >= 4 && (!best || cost < best_cost)) {
                best_cost = cost;
                best = w;
                *len = n;
            }
        }
        if (best)
            return best;
    }
    for (const char *w = next_word(p, &n); n > 0; w = next_word(w + n, &n)) {
        unsigned score = n;
        for (unsigned k = 0; n >= 4 && k < n; k++)
            if (!((w[k] >= 'a' && w[k] <= 'z') || (w[k] >= 'A' && w[k] <= 'Z'))) {
                score += 3;
                break;
            }
        if (score > best_score) {
            best_score = score;
            best = w;
            *len = n;
        }
    }
    return best;
}

/* Three bytes, the first the low one (v's low 24 bits: the scan reads four bytes at once,
 * in the machine's order; on a big-endian machine the hash is of the other three bytes, and
 * hash3 below follows it), hashed to IX_BITS bits (Fibonacci hashing). */
static size_t hash_of(uint32_t v)
{
    static const union {
        uint32_t u;
        unsigned char c[4];
    } order = {1};
    v = order.c[0] ? v & 0xFFFFFFu : v >> 8;
    /* in 64 bits: the product's top bits index the table with no zero-extension between */
    return (size_t)(((uint64_t)v * UINT64_C(0x9E3779B97F4A7C15)) >> (64 - IX_BITS));
}

static unsigned hash3(const unsigned char *s)
{
    uint32_t v;
    unsigned char b[4] = {s[0], s[1], s[2], 0};
    memcpy(&v, b, 4);
    return (unsigned)hash_of(v);
}

static int by_hash(const void *a, const void *b)
{
    const ix_probe *x = a, *y = b;
    if (x->hash != y->hash)
        return (x->hash > y->hash) - (x->hash < y->hash);
    return x->key != y->key ? (x->key > y->key) - (x->key < y->key)
                            : (x->at > y->at) - (x->at < y->at);
}

/* How unlike prose three bytes are: a byte other than a lower-case letter counts. */
static unsigned oddness(const unsigned char *w)
{
    unsigned n = 0;
    for (int i = 0; i < 3; i++)
        n += !(w[i] >= 'a' && w[i] <= 'z');
    return n;
}

/* Where in a key word of len >= 4 bytes its two probed windows start (at, at + 1): the
 * pair least like prose ("l.a" and ".ar" of "general.architecture", not "gen" and "ene",
 * which "generation throughput" holds), the first such pair on a tie. Any two windows next
 * to each other do: one of them starts at an even place of the line. */
static unsigned rare_pair(const unsigned char *w, unsigned len)
{
    unsigned best = 0, best_score = 0;
    for (unsigned k = 0; k + 4 <= len; k++) {
        unsigned score = oddness(w + k) + oddness(w + k + 1);
        if (score > best_score) {
            best_score = score;
            best = k;
        }
    }
    return best;
}

static int add_probe(log_index *ix, unsigned key, unsigned at, const unsigned char *window)
{
    if (ix->n_probes == IX_PROBES)
        return -1;
    ix_probe *p = &ix->probes[ix->n_probes++];
    p->hash = hash3(window);
    p->key = key;
    p->at = at;
    ix->table[p->hash] = 1;
    return 0;
}

static void index_build(log_index *ix, const uint16_t *seen)
{
    memset(ix, 0, sizeof *ix);
    int id = 0;
    const char *word[IX_MAX];
    unsigned len[IX_MAX];
    for (int e = 0; e < KV_ENGINE_COUNT; e++) {
        const kv_engine_log *l = log_of(e);
        for (size_t i = 0; l && i < l->n_patterns; i++, id++) {
            if (id >= IX_MAX)
                return; /* ok stays 0 */
            ix->pats[id] = l->patterns[i].pat;
            word[id] = key_word(l->patterns[i].pat, &len[id], seen);
            if (len[id] < 4) {
                ix->short_word[ix->n_short] = word[id];
                ix->short_len[ix->n_short] = len[id];
                ix->short_ids[ix->n_short++] = id;
            }
        }
    }
    /* the key words, each once, with their patterns in table order */
    size_t n_ids = 0;
    for (int p = 0; p < id; p++) {
        if (len[p] < 4)
            continue;
        int dup = 0;
        for (int q = 0; q < p && !dup; q++)
            dup = len[q] == len[p] && memcmp(word[q], word[p], len[p]) == 0;
        if (dup)
            continue;
        ix_key *k = &ix->keys[ix->n_keys];
        k->word = word[p];
        k->len = len[p];
        k->first = (unsigned)n_ids;
        for (int q = p; q < id; q++)
            if (len[q] == len[p] && memcmp(word[q], word[p], len[p]) == 0)
                ix->ids[n_ids++] = q;
        k->n = (unsigned)n_ids - k->first;
        const unsigned char *w = (const unsigned char *)k->word;
        unsigned key = (unsigned)ix->n_keys++;
        unsigned at[2];
        if (seen) {
            seen_windows(seen, w, k->len, at);
        } else {
            at[0] = rare_pair(w, k->len);
            at[1] = at[0] + 1;
        }
        if (add_probe(ix, key, at[0], w + at[0]) != 0 || add_probe(ix, key, at[1], w + at[1]) != 0)
            return;
    }
    qsort(ix->probes, ix->n_probes, sizeof ix->probes[0], by_hash);
    for (size_t j = ix->n_probes; j-- > 0;)
        ix->first[ix->probes[j].hash] = (uint16_t)j;
    ix->ok = 1;
}

/* Whether s[0..n) holds the m bytes of w. */
static int holds(const unsigned char *s, size_t n, const char *w, size_t m)
{
    for (const unsigned char *end = s + n; (size_t)(end - s) >= m; s++) {
        s = memchr(s, (unsigned char)w[0], (size_t)(end - s) - m + 1);
        if (!s)
            return 0;
        if (memcmp(s, w, m) == 0)
            return 1;
    }
    return 0;
}

/* Whether s[0..n) holds every word of pattern p. */
static int holds_words(const unsigned char *s, size_t n, const char *p)
{
    unsigned len;
    for (const char *w = next_word(p, &len); len > 0; w = next_word(w + len, &len))
        if (!holds(s, n, w, len))
            return 0;
    return 1;
}

/* The probes of hash h, the line's window at i: a key word found there (not tried before
 * in this line) has its patterns set in mask when the line holds their other words.
 * Returns how many. Out of line: it runs at one position in a hundred, and the scan's loop
 * stays small. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static int scan_hit(const log_index *ix, const unsigned char *s, size_t n, size_t i, unsigned h,
                    uint64_t *mask, uint64_t *tried)
{
    int found = 0;
    for (size_t j = ix->first[h]; j < ix->n_probes && ix->probes[j].hash == h; j++) {
        const ix_probe *p = &ix->probes[j];
        const ix_key *k = &ix->keys[p->key];
        if (wanted(tried, (int)p->key) || i < p->at)
            continue;
        size_t start = i - p->at;
        if (k->len > n - start || memcmp(s + start, k->word, k->len) != 0)
            continue;
        mark(tried, (int)p->key);
        for (unsigned q = 0; q < k->n; q++) {
            int id = ix->ids[k->first + q];
            if (holds_words(s, n, ix->pats[id])) {
                mark(mask, id);
                found++;
            }
        }
    }
    return found;
}

/* Sets in mask the patterns whose every word the line holds (which holds no byte the
 * cleaning joins around or rewrites: the caller looked). Returns how many. */
static int index_scan(const log_index *ix, const unsigned char *s, size_t n, uint64_t *mask)
{
    int found = 0;
    uint64_t tried[IX_WORDS] = {0}; /* a key word twice in a line: its patterns tried once */
    for (size_t i = 0; i < ix->n_short; i++)
        if ((ix->short_len[i] == 0 || holds(s, n, ix->short_word[i], ix->short_len[i])) &&
            holds_words(s, n, ix->pats[ix->short_ids[i]])) {
            mark(mask, ix->short_ids[i]);
            found++;
        }
    const unsigned char *table = ix->table;
    size_t i = 0;
    for (; i + 10 <= n; i += 8) { /* four windows a turn, one branch for all four */
        uint32_t a, b, c, d;
        memcpy(&a, s + i, 4);
        memcpy(&b, s + i + 2, 4);
        memcpy(&c, s + i + 4, 4);
        memcpy(&d, s + i + 6, 4);
        size_t ha = hash_of(a), hb = hash_of(b), hc = hash_of(c), hd = hash_of(d);
        if (table[ha] | table[hb] | table[hc] | table[hd]) {
            if (table[ha])
                found += scan_hit(ix, s, n, i, (unsigned)ha, mask, tried);
            if (table[hb])
                found += scan_hit(ix, s, n, i + 2, (unsigned)hb, mask, tried);
            if (table[hc])
                found += scan_hit(ix, s, n, i + 4, (unsigned)hc, mask, tried);
            if (table[hd])
                found += scan_hit(ix, s, n, i + 6, (unsigned)hd, mask, tried);
        }
    }
    for (; i + 6 <= n; i += 4) { /* two windows a turn: one branch for both, mostly not taken */
        uint32_t a, b;
        memcpy(&a, s + i, 4);
        memcpy(&b, s + i + 2, 4);
        unsigned ha = hash_of(a), hb = hash_of(b);
        if (table[ha] | table[hb]) {
            if (table[ha])
                found += scan_hit(ix, s, n, i, ha, mask, tried);
            if (table[hb])
                found += scan_hit(ix, s, n, i + 2, hb, mask, tried);
        }
    }
    for (; i + 4 <= n; i += 2) { /* four bytes read at once, the fourth masked off */
        uint32_t v;
        memcpy(&v, s + i, 4);
        unsigned h = hash_of(v);
        if (table[h])
            found += scan_hit(ix, s, n, i, h, mask, tried);
    }
    if (i + 3 == n) { /* the last window */
        unsigned h = hash3(s + i);
        if (table[h])
            found += scan_hit(ix, s, n, i, h, mask, tried);
    }
    return found;
}

/* kv_log_feed, with the patterns the line cannot hold left untried: the same result. A line
 * holding an ESC or a NUL (dirty) is tried against every pattern. */
static void feed_indexed(kv_log *lg, const log_index *ix, const char *line, size_t len,
                         int dirty)
{
    uint64_t mask[IX_WORDS] = {0};
    if (!ix->ok || len > KV_LOG_LINE_MAX || dirty) {
        feed(lg, line, len, NULL);
        return;
    }
    int found = index_scan(ix, (const unsigned char *)line, len, mask);
    if (found > 0)
        feed(lg, line, len, mask);
    else
        lg->lines++; /* no pattern can match: counted, and nothing else */
}

/* The engine whose KV lines came last; on the same last line (an engine that embeds
 * another prints the other's lines too: Ollama's runner is llama.cpp), the one whose
 * patterns matched more KV lines, which explains more of the log. */
int kv_log_finish(kv_log *lg)
{
    long best = 0, most = 0;
    lg->engine = KV_ENGINE_COUNT;
    for (int e = 0; e < KV_ENGINE_COUNT; e++) {
        const kv_log_values *c = &lg->cand[e];
        if (c->last_kv_line > best || (c->last_kv_line == best && best > 0 && c->kv_lines > most)) {
            best = c->last_kv_line;
            most = c->kv_lines;
            lg->engine = (kv_engine)e;
            lg->values = *c;
        }
    }
    /* no KV line at all: a start that failed after allocating its buffers, by the engine
     * whose buffer lines it holds */
    for (int e = 0; lg->engine == KV_ENGINE_COUNT && e < KV_ENGINE_COUNT; e++) {
        const kv_engine_log *l = kv_engine_get((kv_engine)e)->log;
        if (l && l->fallback_field > 0 && lg->cand[e].present[l->fallback_field]) {
            lg->engine = (kv_engine)e;
            lg->values = lg->cand[e];
        }
    }
    return lg->engine == KV_ENGINE_COUNT ? -1 : 0;
}

/* kv_lines_read's feed: a line longer than KV_LOG_LINE_MAX is skipped whole, and counted. */
typedef struct {
    kv_log *lg;
    log_index *ix;
    uint16_t *seen;            /* the sample's window counts, by hash; NULL: no sampling */
    long sample_from, sample_to; /* the lines of the next sample: [from, to) */
    const char *chunk;         /* the chunk being read, len bytes */
    size_t chunk_len;
    size_t next[2];            /* where its next ESC and NUL are, at or after a line asked
                                  about (chunk_len: none further); SIZE_MAX: not looked for */
} log_reading;

static void log_chunk(void *ctx, const char *chunk, size_t len)
{
    log_reading *r = ctx;
    r->chunk = chunk;
    r->chunk_len = len;
    r->next[0] = r->next[1] = SIZE_MAX;
}

/* Whether the line holds an ESC or a NUL, which the index cannot see through. Two searches
 * of every line were 7% of the reading (issue 22): for a line fed from the chunk, each byte
 * is looked for once in the rest of the chunk, and again only past a line that held it. */
static int line_dirty(log_reading *r, const char *line, size_t len)
{
    static const unsigned char bytes[2] = {0x1b, '\0'};
    uintptr_t at = (uintptr_t)line, base = (uintptr_t)r->chunk;
    if (!r->chunk || at < base || at - base >= r->chunk_len)
        return memchr(line, 0x1b, len) || memchr(line, '\0', len);
    size_t off = (size_t)(at - base);
    int dirty = 0;
    for (int k = 0; k < 2; k++) {
        if (r->next[k] == SIZE_MAX || r->next[k] < off) {
            const char *q = memchr(line, bytes[k], r->chunk_len - off);
            r->next[k] = q ? (size_t)(q - line) + off : r->chunk_len;
        }
        dirty |= r->next[k] < off + len;
    }
    return dirty;
}

/* The sample: the 1,024 lines from line 1,024, from 8,192, from 65,536 and so on, eight
 * times further each time (the startup first, then what the server prints for hours). At
 * the end of each the index is built again, each pattern keyed by its word least met in
 * the sample and each word probed at its two least met windows: the words the static
 * choice takes can be common in a server's own lines ("version" and "serve" in "APIServer",
 * "creating" in "Running"), and each of their windows there costs a check. The answers
 * cannot change (any key word of a pattern and any two windows of different parity find
 * every line the pattern can match: the tests read every log both ways); the speed does. */
#define IX_SAMPLE_FIRST 1024
#define IX_SAMPLE_LINES 1024

static void sample_line(uint16_t *seen, const unsigned char *s, size_t n)
{
    for (size_t i = 0; i + 3 <= n; i += 2) {
        unsigned h = hash3(s + i);
        seen[h] += seen[h] < UINT16_MAX;
    }
}

static kv_status log_line(void *ctx, const char *line, size_t len, char *err, size_t errcap)
{
    log_reading *r = ctx;
    (void)err;
    (void)errcap;
    long at = r->lg->lines; /* this line's number, from 0 */
    if (r->seen && at >= r->sample_from && at < r->sample_to && len <= KV_LOG_LINE_MAX)
        sample_line(r->seen, (const unsigned char *)line, len);
    if (len > KV_LOG_LINE_MAX) {
        r->lg->lines++;
        r->lg->overlong++;
    } else {
        feed_indexed(r->lg, r->ix, line, len, line_dirty(r, line, len));
    }
    if (r->seen && at + 1 == r->sample_to) { /* the sample is complete: choose again */
        index_build(r->ix, r->seen);
        memset(r->seen, 0, sizeof(uint16_t) << IX_BITS);
        r->sample_from = r->sample_from > LONG_MAX / 8 ? LONG_MAX - IX_SAMPLE_LINES
                                                      : r->sample_from * 8;
        r->sample_to = r->sample_from + IX_SAMPLE_LINES;
    }
    return KV_OK;
}

/* The words of a KV line: its pattern up to the first conversion, trailing blanks and
 * colons off ("Available KV cache memory"). */
static size_t kv_words(const char *pat)
{
    size_t n = strcspn(pat, "%");
    while (n > 0 && (pat[n - 1] == ' ' || pat[n - 1] == ':' || pat[n - 1] == '='))
        n--;
    return n;
}

/* "vLLM's "A" / "B", SGLang's "C"": the KV lines of every engine whose logs are read (the
 * first of each wording). */
static void kv_lines_looked_for(char *buf, size_t cap)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int e = 0; e < KV_ENGINE_COUNT && at < cap; e++) {
        const kv_engine_log *l = log_of(e);
        int shown = 0;
        for (size_t i = 0; l && i < l->n_patterns && at < cap; i++) {
            const char *p = l->patterns[i].pat;
            size_t n = kv_words(p), dup = 0;
            if (!(l->patterns[i].flags & KV_LINE) || n < 10 || !memchr(p, ' ', n) || strchr(p, '*'))
                continue;
            for (size_t k = 0; k < i && !dup; k++)
                dup = (l->patterns[k].flags & KV_LINE) && kv_words(l->patterns[k].pat) == n &&
                      strncmp(l->patterns[k].pat, p, n) == 0;
            if (dup || shown == 3)
                continue;
            at += (size_t)kv_snprintf(buf + at, cap - at, "%s%s%s\"%.*s\"",
                                   shown ? " / " : at ? ", " : "",
                                   shown ? "" : kv_engine_title((kv_engine)e), shown ? "" : "'s ",
                                   (int)n, p);
            shown++;
        }
    }
}

kv_status kv_log_read_file(const char *path, const char *label, kv_log *lg, char *err,
                           size_t errcap)
{
    kv_log_init(lg);
    log_index *ix = malloc(sizeof *ix);
    if (!ix) {
        kv_snprintf(err, errcap, "%s: out of memory", label);
        return KV_ERR_NO_MEMORY;
    }
    index_build(ix, NULL);
    /* without memory for the sample the static choice stays: the same answers */
    log_reading r = {lg, ix, calloc((size_t)1 << IX_BITS, sizeof(uint16_t)), IX_SAMPLE_FIRST,
                     IX_SAMPLE_FIRST + IX_SAMPLE_LINES, NULL, 0, {SIZE_MAX, SIZE_MAX}};
    char msg[512];
    kv_status st = kv_lines_read(path, KV_LOG_LINE_MAX, log_line, log_chunk, &r, &lg->unterminated, msg,
                                 sizeof msg);
    free(r.seen);
    free(ix);
    if (st != KV_OK) {
        kv_snprintf(err, errcap, "%s: %s", label, msg);
        return st;
    }
    if (kv_log_finish(lg) != 0) {
        char lines[1024];
        kv_lines_looked_for(lines, sizeof lines);
        kv_snprintf(err, errcap, "%s: not a startup log kvcalc recognises (looked for %s)", label,
                 lines);
        return KV_ERR_FORMAT;
    }
    return KV_OK;
}
