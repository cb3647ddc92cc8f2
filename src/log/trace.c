/*
 * trace.c - a request trace (CSV with a header, or JSON lines): each request's prompt and
 * output tokens and, when the trace has them, its arrival time.
 *
 * The columns are found by their names, so the public traces read as they are published:
 * Azure's LLM inference traces (TIMESTAMP, ContextTokens, GeneratedTokens; the timestamp a
 * date and time), BurstGPT (Timestamp, ..., Request tokens, Response tokens, ...; seconds;
 * failed requests have 0 response tokens and are counted, then left out) and kvcalc's own
 * prompt_tokens, output_tokens, arrival_s. Lines are fed one at a time (the file is never
 * held whole); each is bounded, and an error names its line.
 */
#include "kvcalc.h"

#include "kvcalc_json.h"
#include "kvprint.h"
#include "lines.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_COLS 64
#define MAX_ROWS 100000000u /* 2.4 GB of rows: beyond it the trace is refused, not cut */

static const char *const prompt_names[] = {"ContextTokens", "Request tokens", "prompt_tokens",
                                           "input_tokens", "prompt_len", "input_length", NULL};
static const char *const output_names[] = {"GeneratedTokens", "Response tokens", "output_tokens",
                                           "output_len", "output_length", NULL};
static const char *const arrival_names[] = {"TIMESTAMP", "arrival_s", "arrival_time", NULL};

void kv_trace_init(kv_trace *t)
{
    memset(t, 0, sizeof *t);
    t->col_prompt = t->col_output = t->col_arrival = -1;
}

void kv_trace_free(kv_trace *t)
{
    free(t->rows);
    kv_trace_init(t);
}

static kv_status fail(kv_trace *t, char *err, size_t cap, const char *fmt, const char *a,
                      const char *b)
{
    char msg[512];
    kv_snprintf(msg, sizeof msg, fmt, a, b);
    kv_snprintf(err, cap, "line %zu: %s", t->line, msg);
    return KV_ERR_FORMAT;
}

/* A field of a CSV line: [start, end) after trimming blanks and one pair of quotes. */
typedef struct {
    const char *s;
    size_t n;
} span;

static size_t split(const char *line, size_t len, span *out, size_t cap)
{
    size_t n = 0, i = 0;
    while (n < cap) {
        size_t a = i;
        int quoted = 0;
        while (a < len && (line[a] == ' ' || line[a] == '\t'))
            a++;
        size_t b = a;
        if (a < len && line[a] == '"') { /* a quoted field: up to the closing quote */
            quoted = 1;
            b = ++a;
            while (b < len && line[b] != '"')
                b++;
            i = b < len ? b + 1 : b;
            while (i < len && line[i] != ',')
                i++;
        } else {
            while (b < len && line[b] != ',')
                b++;
            i = b;
        }
        size_t e = b;
        while (!quoted && e > a && (line[e - 1] == ' ' || line[e - 1] == '\t'))
            e--;
        out[n].s = line + a;
        out[n].n = e - a;
        n++;
        if (i >= len)
            break;
        i++; /* the comma */
    }
    return n;
}

static int name_is(span f, const char *const *names)
{
    for (size_t k = 0; names[k]; k++) {
        size_t m = strlen(names[k]);
        if (f.n == m) {
            size_t i = 0;
            while (i < m && tolower((unsigned char)f.s[i]) == tolower((unsigned char)names[k][i]))
                i++;
            if (i == m)
                return 1;
        }
    }
    return 0;
}

/* A whole number of tokens, 0 .. 10^12. */
static int tokens_of(span f, int64_t *out)
{
    if (f.n == 0 || f.n > 13)
        return -1;
    int64_t v = 0;
    for (size_t i = 0; i < f.n; i++) {
        if (!isdigit((unsigned char)f.s[i]))
            return -1;
        v = v * 10 + (f.s[i] - '0');
    }
    if (v > 1000000000000)
        return -1;
    *out = v;
    return 0;
}

/* Days from 1970-01-01 to y-m-d (Howard Hinnant's days_from_civil). */
static int64_t days_from_civil(int64_t y, int64_t m, int64_t d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

/* Seconds: a plain decimal, or a date and time "YYYY-MM-DD HH:MM:SS[.frac]" (Azure's). */
static int seconds_of(span f, double *out)
{
    char buf[64];
    if (f.n == 0 || f.n >= sizeof buf)
        return -1;
    memcpy(buf, f.s, f.n);
    buf[f.n] = '\0';
    int y, mo, d, h, mi, n = 0;
    double sec;
    if (sscanf(buf, "%4d-%2d-%2d%*1[ T]%2d:%2d:%lf%n", &y, &mo, &d, &h, &mi, &sec, &n) == 6 &&
        (size_t)n == f.n) {
        if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || !(sec >= 0 && sec < 61))
            return -1;
        *out = (double)days_from_civil(y, mo, d) * 86400.0 + h * 3600.0 + mi * 60.0 + sec;
        return 0;
    }
    char *end;
    errno = 0;
    double v = strtod(buf, &end);
    if (end == buf || *end || errno || !isfinite(v) || v < 0 || !isdigit((unsigned char)buf[0]))
        return -1;
    *out = v;
    return 0;
}

/* The header: which columns hold the prompt, the output and the arrival. */
static kv_status header(kv_trace *t, const char *line, size_t len, char *err, size_t cap)
{
    span f[MAX_COLS];
    size_t n = split(line, len, f, MAX_COLS);
    for (size_t i = 0; i < n; i++) {
        int *col = name_is(f[i], prompt_names)    ? &t->col_prompt
                   : name_is(f[i], output_names)  ? &t->col_output
                   : name_is(f[i], arrival_names) ? &t->col_arrival
                                                  : NULL;
        if (col && *col < 0)
            *col = (int)i;
    }
    t->ncols = (int)n;
    if (t->col_prompt < 0 || t->col_output < 0)
        return fail(t, err, cap, "a trace's header names its prompt and output columns "
                                 "(ContextTokens, GeneratedTokens; Request tokens, Response "
                                 "tokens; or prompt_tokens, output_tokens)%s%s", "", "");
    static const struct {
        const char *column, *layout;
    } layouts[] = {{"ContextTokens", "azure"}, {"Request tokens", "burstgpt"}};
    t->layout = "csv";
    for (size_t k = 0; k < sizeof layouts / sizeof layouts[0]; k++) {
        const char *const one[] = {layouts[k].column, NULL};
        if (name_is(f[t->col_prompt], one))
            t->layout = layouts[k].layout;
    }
    return KV_OK;
}

static kv_status add(kv_trace *t, int64_t p, int64_t o, double arrival, char *err, size_t cap)
{
    if (o == 0 || p == 0) { /* BurstGPT's failed requests: counted, left out */
        t->skipped++;
        return KV_OK;
    }
    if (t->n > 0 && !isnan(arrival) && !isnan(t->rows[t->n - 1].arrival_s) &&
        arrival < t->rows[t->n - 1].arrival_s)
        return fail(t, err, cap, "arrives before the row above it (a trace is in arrival "
                                 "order)%s%s", "", "");
    if (t->n == t->cap) {
        if (t->cap >= MAX_ROWS)
            return fail(t, err, cap, "more than 100,000,000 requests: refused rather than "
                                     "cut%s%s", "", "");
        size_t cap2 = t->cap ? t->cap * 2 : 1024;
        kv_trace_row *rows = realloc(t->rows, cap2 * sizeof *rows);
        if (!rows) {
            kv_snprintf(err, cap, "line %zu: out of memory", t->line);
            return KV_ERR_NO_MEMORY;
        }
        t->rows = rows;
        t->cap = cap2;
    }
    t->rows[t->n].prompt = p;
    t->rows[t->n].output = o;
    t->rows[t->n].arrival_s = arrival;
    t->n++;
    return KV_OK;
}

/* A JSON line: {"prompt_tokens": N, "output_tokens": N, "arrival_s": X}, or the other names. */
static kv_status json_line(kv_trace *t, const char *line, size_t len, char *err, size_t cap)
{
    kv_json_tok toks[128];
    kv_json_error je;
    char at[64];
    if (kv_json_parse(line, len, toks, 128, 4, &je) < 0) {
        kv_snprintf(at, sizeof at, "%zu", je.col);
        return fail(t, err, cap, "column %s: %s", at, je.msg);
    }
    if (toks[0].type != KV_JSON_OBJECT)
        return fail(t, err, cap, "expected a JSON object per line%s%s", "", "");
    int64_t v[2];
    const char *const *names[2] = {prompt_names, output_names};
    for (int k = 0; k < 2; k++) {
        size_t at_tok = 0;
        for (size_t i = 0; names[k][i] && !at_tok; i++)
            at_tok = kv_json_find(line, toks, 0, names[k][i]);
        span f = {at_tok ? line + toks[at_tok].start : "", at_tok ? toks[at_tok].end - toks[at_tok].start : 0};
        if (!at_tok || toks[at_tok].type != KV_JSON_NUMBER || tokens_of(f, &v[k]) < 0)
            return fail(t, err, cap, "%s: expected a whole number of tokens", k ? "output_tokens"
                                                                                 : "prompt_tokens", "");
    }
    double arrival = NAN;
    size_t a = 0;
    for (size_t i = 0; arrival_names[i] && !a; i++)
        a = kv_json_find(line, toks, 0, arrival_names[i]);
    if (a) {
        span f = {line + toks[a].start, toks[a].end - toks[a].start};
        if ((toks[a].type != KV_JSON_NUMBER && toks[a].type != KV_JSON_STRING) ||
            seconds_of(f, &arrival) < 0)
            return fail(t, err, cap, "arrival_s: expected seconds (>= 0) or a date and time%s%s",
                        "", "");
    }
    if (t->n == 0 && t->skipped == 0)
        t->has_arrivals = a != 0;
    else if (t->has_arrivals != (a != 0))
        return fail(t, err, cap, "an arrival time on some lines and not on others%s%s", "", "");
    return add(t, v[0], v[1], arrival, err, cap);
}

kv_status kv_trace_feed_line(kv_trace *t, const char *line, size_t len, char *err, size_t cap)
{
    t->line++;
    if (len > 0 && line[len - 1] == '\r') /* CRLF files */
        len--;
    if (len > KV_TRACE_LINE_MAX)
        return fail(t, err, cap, "longer than 65,536 bytes%s%s", "", "");
    size_t i = 0;
    while (i < len && (line[i] == ' ' || line[i] == '\t'))
        i++;
    if (i == len)
        return KV_OK; /* blank lines between rows */
    if (t->format == 0) {
        if (line[i] == '{') {
            t->format = 2;
            t->layout = "jsonl";
        } else {
            t->format = 1;
            return header(t, line, len, err, cap);
        }
    }
    if (t->format == 2)
        return json_line(t, line, len, err, cap);
    span f[MAX_COLS];
    size_t n = split(line, len, f, MAX_COLS);
    if ((int)n < t->ncols)
        return fail(t, err, cap, "fewer columns than the header names%s%s", "", "");
    int64_t p, o;
    if (tokens_of(f[t->col_prompt], &p) < 0 || tokens_of(f[t->col_output], &o) < 0) {
        char shown[48];
        span bad = tokens_of(f[t->col_prompt], &p) < 0 ? f[t->col_prompt] : f[t->col_output];
        size_t m = bad.n < 40 ? bad.n : 40;
        for (size_t k = 0; k < m; k++) /* control bytes are not printed as they are */
            shown[k] = (unsigned char)bad.s[k] < 0x20 || bad.s[k] == 0x7f ? '?' : bad.s[k];
        shown[m] = '\0';
        return fail(t, err, cap, "expected a whole number of tokens, got '%s'%s", shown,
                    bad.n > 40 ? "..." : "");
    }
    double arrival = NAN;
    if (t->col_arrival >= 0 && seconds_of(f[t->col_arrival], &arrival) < 0)
        return fail(t, err, cap, "the arrival column: expected seconds (>= 0) or a date and time "
                                 "(YYYY-MM-DD HH:MM:SS)%s%s", "", "");
    t->has_arrivals = t->col_arrival >= 0;
    return add(t, p, o, arrival, err, cap);
}

kv_status kv_trace_finish(kv_trace *t, char *err, size_t cap)
{
    if (t->n == 0) {
        kv_snprintf(err, cap, "no request in the trace (%zu lines, %zu left out with no prompt or "
                           "no output)", t->line, t->skipped);
        return KV_ERR_FORMAT;
    }
    return KV_OK;
}

static kv_status trace_feed(void *ctx, const char *line, size_t len, char *err, size_t cap)
{
    return kv_trace_feed_line(ctx, line, len, err, cap);
}

kv_status kv_trace_read_file(const char *path, const char *label, kv_trace *t, char *err,
                             size_t cap)
{
    char msg[1024];
    kv_trace_init(t);
    kv_status st = kv_lines_read(path, KV_TRACE_LINE_MAX, trace_feed, NULL, t, NULL, msg, sizeof msg);
    if (st == KV_OK)
        st = kv_trace_finish(t, msg, sizeof msg);
    if (st != KV_OK) {
        kv_snprintf(err, cap, "%s: %s", label, msg);
        kv_trace_free(t);
    }
    return st;
}
