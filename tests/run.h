/*
 * run.h - run the real kvcalc binary and capture what it does, for the end-to-end tests.
 * POSIX (fork/exec, mkstemp) is fine here: the tests, not the product, use it.
 */
#ifndef KVCALC_TEST_RUN_H
#define KVCALC_TEST_RUN_H

#include <stddef.h>

typedef struct {
    char *out;     /* standard output, NUL-terminated (malloc'ed) */
    size_t out_len;
    char *err;     /* standard error, NUL-terminated (malloc'ed) */
    size_t err_len;
    int status;    /* exit status, or -1 if it did not exit normally */
} run_result;

/* Runs KVCALC_BIN with args (NULL-terminated, without argv[0]); stdout goes to stdout_path
 * when it is not NULL (e.g. "/dev/full"), stdin comes from stdin_path (else /dev/null).
 * Aborts the test on a harness failure. */
void run_kvcalc_io(const char *const *args, const char *stdin_path, const char *stdout_path,
                   run_result *r);
void run_kvcalc_to(const char *const *args, const char *stdout_path, run_result *r);
void run_kvcalc(const char *const *args, run_result *r);
void run_free(run_result *r);

/* Runs kvcalc with args (NULL-terminated) and fails the test unless it exits 0 with exactly
 * `want` on stdout. EXPECT_STDOUT("75\n", "--context", "8192", "--get", "max_concurrency"). */
void expect_stdout(const char *const *args, const char *want);

/* `kvcalc ARGS` is refused: exit 2, nothing on stdout, `says` in its message. */
void expect_refused(const char *const *args, const char *says);

/* The number `kvcalc ARGS --get KEY` prints; fails the test unless it exits 0. */
double run_get(const char *key, const char *const *args);
#define EXPECT_STDOUT(want, ...) expect_stdout((const char *const[]){__VA_ARGS__, NULL}, want)

/* Writes text to a new file named from path, a mkstemp() template ("/tmp/x-XXXXXX") that
 * becomes the file's name; aborts the test on failure. */
void write_temp(char *path, const char *text);

/* A copy of the file at src, changed, written as write_temp() does: its first `find` replaced
 * by `with`, or with NULL every line holding `find` dropped. Aborts the test when src cannot
 * be read or holds no `find`. */
void write_variant(char *path, const char *src, const char *find, const char *with);

/* Reads a whole file into a malloc'ed NUL-terminated buffer (NULL if it cannot). */
char *read_file(const char *path, size_t *len);

/* "[[[...]]]" nested `depth` deep (malloc'ed): the hostile config of the tests. */
char *nested_arrays(size_t depth);

/* Number of '\n' in s. */
size_t count_lines(const char *s);

#endif
