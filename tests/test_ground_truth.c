/*
 * test_ground_truth.c - real engine start-up logs, reproduced through the binary.
 *
 * tests/engines/ground-truth.tsv is a copy of the reference's table of real SGLang,
 * llama.cpp and TensorRT-LLM start-up logs: one row per check, with the kvcalc arguments,
 * the inputs the log printed rounded, and what must come out. The rules, from the
 * reference's ground-truth.md:
 *   - `rounded` lists FLAG:H - the true value lies within +-H of the one given: kvcalc runs
 *     at every combination of value - H and value + H, and a check passes when the logged
 *     value lies within the smallest and largest result;
 *   - KEY=N: --get KEY equals N (or N lies within the results of the runs);
 *   - KEY~gib:X+Y (or ~mib:) - the log printed X and Y with two decimals: the bytes must
 *     overlap [sum(X - 0.005), sum(X + 0.005)] x 2^30 (2^20);
 *   - KEY~pct:P:N - N lies within P percent of the results (the "within 1%" of an
 *     end-to-end figure whose inputs a log rounds or does not print);
 *   - text~/RE/ - the default text output matches RE.
 * {fixture:FILE} stands for tests/fixtures/frontier/FILE (a config that is no preset).
 * {gguf:ID} stands for a small GGUF file a test writes itself: such a row runs once the
 * GGUF file exists in tests/engines/gguf/ID.gguf.
 *
 * A row whose engine kvcalc does not know yet is reported and counted as skipped, so the
 * table is the list of what remains; every other row must pass.
 */
#define _POSIX_C_SOURCE 200809L /* regcomp: the test, not the product */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"

#define MAX_ARGS 64
#define MAX_ROUNDED 4

typedef struct {
    char *field[11]; /* id engine model kvcalc_inputs rounded expect logged ... */
} row;

/* Splits a TSV line in place. */
static int split_row(char *line, row *r)
{
    size_t n = 0;
    for (char *p = line; n < 11;) {
        r->field[n++] = p;
        char *tab = strchr(p, '\t');
        if (!tab)
            break;
        *tab = '\0';
        p = tab + 1;
    }
    return n >= 6 ? 0 : -1;
}

/* Splits kvcalc's arguments at spaces (the table quotes nothing). */
static size_t split_args(char *text, const char **argv, size_t cap)
{
    size_t n = 0;
    for (char *tok = strtok(text, " "); tok && n + 1 < cap; tok = strtok(NULL, " "))
        argv[n++] = tok;
    argv[n] = NULL;
    return n;
}

/* The regular expression of the table in POSIX ERE: \d and \s are not POSIX. */
static void posix_regex(const char *re, char *out, size_t cap)
{
    size_t n = 0;
    for (; *re && n + 16 < cap; re++) {
        if (re[0] == '\\' && (re[1] == 'd' || re[1] == 's')) {
            const char *cls = re[1] == 'd' ? "[0-9]" : "[[:space:]]";
            memcpy(out + n, cls, strlen(cls));
            n += strlen(cls);
            re++;
        } else {
            out[n++] = *re;
        }
    }
    out[n] = '\0';
}

typedef struct {
    const char *flag;  /* "--free-mem-gib" */
    double half;       /* H */
    size_t at;         /* its value's index in argv */
    double value;      /* as given */
} rounded_input;

/* --get KEY over every combination of the rounded inputs: [*lo, *hi]. Returns 0, or -1 when
 * a run fails (the failure is reported). */
static int get_range(const char **argv, size_t argc, rounded_input *rin, size_t nr,
                     const char *key, const char *id, double *lo, double *hi)
{
    char values[MAX_ROUNDED][64];
    *lo = INFINITY;
    *hi = -INFINITY;
    for (unsigned combo = 0; combo < (1u << nr); combo++) {
        for (size_t k = 0; k < nr; k++) {
            double v = rin[k].value + ((combo >> k) & 1 ? rin[k].half : -rin[k].half);
            snprintf(values[k], sizeof values[k], "%.17g", v);
            argv[rin[k].at] = values[k];
        }
        argv[argc] = "--get";
        argv[argc + 1] = key;
        argv[argc + 2] = NULL;
        run_result r;
        run_kvcalc(argv, &r);
        char *end;
        double got = strtod(r.out, &end);
        if (r.status != 0 || end == r.out) {
            print_error("%s: --get %s: exit %d, stdout '%s', stderr '%s'\n", id, key, r.status,
                        r.out, r.err);
            run_free(&r);
            return -1;
        }
        run_free(&r);
        *lo = got < *lo ? got : *lo;
        *hi = got > *hi ? got : *hi;
    }
    argv[argc] = NULL;
    return 0;
}

/* One `;`-separated check of a row. Returns 1 passed, 0 failed (reported). */
static int check(const char **argv, size_t argc, rounded_input *rin, size_t nr,
                 const char *id, char *what)
{
    while (*what == ' ')
        what++;
    if (strncmp(what, "text~/", 6) == 0) {
        char re[1024];
        size_t len = strlen(what);
        if (len < 7 || what[len - 1] != '/')
            fail_msg("%s: bad text check '%s'", id, what);
        what[len - 1] = '\0';
        posix_regex(what + 6, re, sizeof re);
        regex_t rx;
        if (regcomp(&rx, re, REG_EXTENDED | REG_NOSUB) != 0)
            fail_msg("%s: bad regular expression '%s'", id, re);
        run_result r;
        run_kvcalc(argv, &r);
        int ok = r.status == 0 && regexec(&rx, r.out, 0, NULL, 0) == 0;
        if (!ok)
            print_error("%s: no match of /%s/ in (exit %d):\n%s%s\n", id, what + 6, r.status,
                        r.out, r.err);
        regfree(&rx);
        run_free(&r);
        return ok;
    }
    char *tilde = strchr(what, '~'), *eq = strchr(what, '=');
    char key[64];
    double lo, hi;
    if (tilde && strncmp(tilde + 1, "pct:", 4) == 0) {
        char *end;
        double pct = strtod(tilde + 5, &end);
        if (*end != ':')
            fail_msg("%s: bad check '%s'", id, what);
        double want = strtod(end + 1, NULL);
        snprintf(key, sizeof key, "%.*s", (int)(tilde - what), what);
        if (get_range(argv, argc, rin, nr, key, id, &lo, &hi) != 0)
            return 0;
        int ok = want >= lo * (1 - pct / 100) && want <= hi * (1 + pct / 100);
        if (!ok)
            print_error("%s: %s: want %.17g within %g%% of [%.17g, %.17g]\n", id, key, want, pct,
                        lo, hi);
        return ok;
    }
    if (eq && (!tilde || eq < tilde)) {
        snprintf(key, sizeof key, "%.*s", (int)(eq - what), what);
        double want = strtod(eq + 1, NULL);
        if (get_range(argv, argc, rin, nr, key, id, &lo, &hi) != 0)
            return 0;
        int ok = want >= lo && want <= hi;
        if (!ok)
            print_error("%s: %s: want %.17g, got [%.17g, %.17g]\n", id, key, want, lo, hi);
        return ok;
    }
    if (!tilde)
        fail_msg("%s: bad check '%s'", id, what);
    snprintf(key, sizeof key, "%.*s", (int)(tilde - what), what);
    double unit = strncmp(tilde + 1, "gib:", 4) == 0   ? 1073741824.0
                : strncmp(tilde + 1, "mib:", 4) == 0 ? 1048576.0
                                                     : 0;
    if (unit == 0)
        fail_msg("%s: bad unit in '%s'", id, what);
    double sum = 0;
    size_t terms = 0;
    for (char *p = tilde + 5; *p; terms++) {
        char *end;
        sum += strtod(p, &end);
        p = *end == '+' ? end + 1 : end;
        if (end == p && *p)
            fail_msg("%s: bad sum in '%s'", id, what);
    }
    double want_lo = (sum - 0.005 * (double)terms) * unit, want_hi = (sum + 0.005 * (double)terms) * unit;
    if (get_range(argv, argc, rin, nr, key, id, &lo, &hi) != 0)
        return 0;
    int ok = hi >= want_lo && lo <= want_hi;
    if (!ok)
        print_error("%s: %s: want [%.0f, %.0f] B, got [%.0f, %.0f]\n", id, key, want_lo,
                    want_hi, lo, hi);
    return ok;
}

/* Whether kvcalc knows the engine (it refuses an unknown --engine with exit 2). */
static int engine_known(const char *engine)
{
    run_result r;
    run_kvcalc((const char *const[]){"--engine", engine, "--get", "engine", NULL}, &r);
    int ok = r.status == 0;
    run_free(&r);
    return ok;
}

static void every_row(void **state)
{
    (void)state;
    size_t len;
    char *table = read_file(KVCALC_SOURCE_DIR "/tests/engines/ground-truth.tsv", &len);
    assert_non_null(table);
    size_t rows = 0, passed = 0, skipped = 0;
    int failed = 0;
    char *save = NULL;
    strtok_r(table, "\n", &save); /* the header */
    for (char *line = strtok_r(NULL, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        row r = {{NULL}};
        if (split_row(line, &r) != 0)
            fail_msg("bad row: %s", line);
        rows++;
        const char *id = r.field[0], *engine = r.field[1];
        if (!engine_known(engine)) {
            print_message("  %s: skipped: kvcalc has no --engine %s yet\n", id, engine);
            skipped++;
            continue;
        }
        char inputs[2048], gguf[512];
        snprintf(inputs, sizeof inputs, "%s", r.field[3]);
        char *g = strstr(inputs, "{gguf:");
        if (g) {
            char *close = strchr(g, '}');
            assert_non_null(close);
            snprintf(gguf, sizeof gguf, KVCALC_BINARY_DIR "/engines/gguf/%.*s.gguf",
                     (int)(close - g - 6), g + 6);
            FILE *f = fopen(gguf, "rb");
            if (!f) {
                print_message("  %s: skipped: no GGUF file %s\n", id, gguf);
                skipped++;
                continue;
            }
            fclose(f);
            char rest[2048];
            snprintf(rest, sizeof rest, "%s", close + 1);
            snprintf(g, sizeof inputs - (size_t)(g - inputs), "%s%s", gguf, rest);
        }
        char *fx = strstr(inputs, "{fixture:");
        if (fx) {
            char *close = strchr(fx, '}'), rest[2048], path[512];
            assert_non_null(close);
            snprintf(path, sizeof path, KVCALC_SOURCE_DIR "/tests/fixtures/frontier/%.*s",
                     (int)(close - fx - 9), fx + 9);
            snprintf(rest, sizeof rest, "%s", close + 1);
            snprintf(fx, sizeof inputs - (size_t)(fx - inputs), "%s%s", path, rest);
        }
        const char *argv[MAX_ARGS + 3];
        size_t argc = split_args(inputs, argv, MAX_ARGS);
        rounded_input rin[MAX_ROUNDED];
        size_t nr = 0;
        char rounded[512];
        snprintf(rounded, sizeof rounded, "%s", r.field[4]);
        char *rsave = NULL;
        for (char *tok = strtok_r(rounded, " ", &rsave); tok && nr < MAX_ROUNDED;
             tok = strtok_r(NULL, " ", &rsave)) {
            char *colon = strrchr(tok, ':');
            assert_non_null(colon);
            *colon = '\0';
            rin[nr].flag = tok;
            rin[nr].half = strtod(colon + 1, NULL);
            rin[nr].at = 0;
            for (size_t a = 0; a + 1 < argc; a++)
                if (strcmp(argv[a], tok) == 0)
                    rin[nr].at = a + 1;
            if (rin[nr].at == 0)
                fail_msg("%s: rounded flag %s not in the inputs", id, tok);
            rin[nr].value = strtod(argv[rin[nr].at], NULL);
            nr++;
        }
        const char *values[MAX_ROUNDED];
        for (size_t k = 0; k < nr; k++)
            values[k] = argv[rin[k].at];
        char expect[2048];
        snprintf(expect, sizeof expect, "%s", r.field[5]);
        int ok = 1;
        char *esave = NULL;
        for (char *c = strtok_r(expect, ";", &esave); c; c = strtok_r(NULL, ";", &esave)) {
            for (size_t k = 0; k < nr; k++)
                argv[rin[k].at] = values[k];
            ok &= check(argv, argc, rin, nr, id, c);
        }
        for (size_t k = 0; k < nr; k++)
            argv[rin[k].at] = values[k];
        if (ok)
            passed++;
        else
            failed = 1;
        print_message("  %s (%s): %s\n", id, engine, ok ? "ok" : "FAILED");
    }
    print_message("ground truth: %zu rows, %zu reproduced, %zu skipped\n", rows, passed,
                  skipped);
    free(table);
    assert_true(rows >= 19);
    assert_false(failed);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_row),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
