/* run.c - see run.h. */
#define _POSIX_C_SOURCE 200809L
#include "run.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static void die(const char *what)
{
    perror(what);
    abort();
}

char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    if (!buf)
        die("malloc");
    for (;;) {
        if (n + 4096 + 1 > cap) {
            cap *= 2;
            char *nb = realloc(buf, cap);
            if (!nb)
                die("realloc");
            buf = nb;
        }
        size_t got = fread(buf + n, 1, 4096, f);
        n += got;
        if (got == 0)
            break;
    }
    fclose(f);
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

static int temp_file(char *path)
{
    strcpy(path, "/tmp/kvcalc-test-XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0)
        die("mkstemp");
    return fd;
}

void run_kvcalc_io(const char *const *args, const char *stdin_path, const char *stdout_path,
                   run_result *r)
{
    char out_path[64], err_path[64];
    int out_fd = stdout_path ? open(stdout_path, O_WRONLY) : temp_file(out_path);
    int err_fd = temp_file(err_path);
    if (out_fd < 0)
        die(stdout_path);
    size_t n = 0;
    while (args[n])
        n++;
    const char **argv = calloc(n + 2, sizeof *argv);
    if (!argv)
        die("calloc");
    argv[0] = KVCALC_BIN;
    for (size_t i = 0; i < n; i++)
        argv[i + 1] = args[i];
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        die("fork");
    if (pid == 0) {
        int in = open(stdin_path ? stdin_path : "/dev/null", O_RDONLY);
        if (in >= 0)
            dup2(in, 0);
        dup2(out_fd, 1);
        dup2(err_fd, 2);
        execv(KVCALC_BIN, (char *const *)argv);
        _exit(127);
    }
    int st = 0;
    if (waitpid(pid, &st, 0) < 0)
        die("waitpid");
    free(argv);
    close(out_fd);
    close(err_fd);
    r->status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    if (stdout_path) {
        r->out = calloc(1, 1);
        r->out_len = 0;
    } else {
        r->out = read_file(out_path, &r->out_len);
        unlink(out_path);
    }
    r->err = read_file(err_path, &r->err_len);
    unlink(err_path);
    if (!r->out || !r->err)
        die("read_file");
}

void run_kvcalc_to(const char *const *args, const char *stdout_path, run_result *r)
{
    run_kvcalc_io(args, NULL, stdout_path, r);
}

void run_kvcalc(const char *const *args, run_result *r)
{
    run_kvcalc_io(args, NULL, NULL, r);
}

void run_free(run_result *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

size_t count_lines(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += (*s == '\n');
    return n;
}

char *nested_arrays(size_t depth)
{
    char *text = malloc(2 * depth + 1);
    if (!text)
        die("malloc");
    memset(text, '[', depth);
    memset(text + depth, ']', depth);
    text[2 * depth] = '\0';
    return text;
}

void expect_refused(const char *const *args, const char *says)
{
    run_result r;
    run_kvcalc(args, &r);
    if (r.status != 2 || r.out_len != 0 || !strstr(r.err, says))
        fail_msg("expected exit 2 and \"%s\"; got exit %d: %s", says, r.status, r.err);
    run_free(&r);
}

double run_get(const char *key, const char *const *args)
{
    const char *argv[67];
    size_t n = 0;
    while (args[n] && n < 64) {
        argv[n] = args[n];
        n++;
    }
    argv[n++] = "--get";
    argv[n++] = key;
    argv[n] = NULL;
    run_result r;
    run_kvcalc(argv, &r);
    if (r.status != 0)
        fail_msg("--get %s: exit %d: %s", key, r.status, r.err);
    double x = strtod(r.out, NULL);
    run_free(&r);
    return x;
}

void expect_stdout(const char *const *args, const char *want)
{
    run_result r;
    run_kvcalc(args, &r);
    if (r.status != 0 || strcmp(r.out, want) != 0)
        fail_msg("kvcalc %s...: got '%s' (exit %d, stderr '%s'), want '%s'", args[0] ? args[0] : "",
                 r.out, r.status, r.err, want);
    run_free(&r);
}

void write_temp(char *path, const char *text)
{
    int fd = mkstemp(path);
    if (fd < 0)
        die("mkstemp");
    FILE *f = fdopen(fd, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0)
        die("write_temp");
}

void write_variant(char *path, const char *src, const char *find, const char *with)
{
    size_t len, fl = strlen(find);
    char *text = read_file(src, &len);
    if (!text || !strstr(text, find))
        die("write_variant: the source, or its text to change");
    char *out = malloc(len + (with ? strlen(with) : 0) + 1);
    if (!out)
        die("malloc");
    size_t w = 0;
    if (with) { /* the first one replaced */
        const char *at = strstr(text, find);
        memcpy(out, text, (size_t)(at - text));
        w = (size_t)(at - text);
        memcpy(out + w, with, strlen(with));
        w += strlen(with);
        strcpy(out + w, at + fl);
    } else { /* every line holding it dropped */
        for (char *line = text; *line;) {
            char *nl = strchr(line, '\n');
            size_t n = nl ? (size_t)(nl - line + 1) : strlen(line);
            char keep = line[n - 1];
            line[n - 1] = '\0';
            int drop = strstr(line, find) != NULL;
            line[n - 1] = keep;
            if (!drop) {
                memcpy(out + w, line, n);
                w += n;
            }
            line += n;
        }
        out[w] = '\0';
    }
    write_temp(path, out);
    free(out);
    free(text);
}
