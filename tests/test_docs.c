/*
 * test_docs.c - every kvcalc command of README.md and of the pages in docs/ runs.
 *
 * A command is a line of a fenced or indented code block that starts with "kvcalc -" (or
 * "$ kvcalc -"); a line that continues with a backslash is joined with the next. The words
 * are split as a shell would split these simple lines (single quotes, no variables); what
 * follows a pipe, a redirection, "&&" or a "#" comment is the shell's, not kvcalc's, and is
 * left out. Files the docs name as examples stand for real test files (the table below), in
 * a scratch folder the command runs in, so that --plot and the like write there. Each command
 * must exit 0. A line that names a file and a colon after it is output, not a command.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run.h"

#define MAX_WORDS 64
#define WORD_CAP 1024

static char scratch[] = "/tmp/kvcalc-docs-XXXXXX";

/* The docs' example files, and the test files that stand for them. */
static const struct {
    const char *shown, *real;
} files[] = {
    {"path/to/config.json", KVCALC_SOURCE_DIR "/data/models/Qwen__Qwen3-8B.json"},
    {"deepseek-v4-flash.json",
     KVCALC_SOURCE_DIR "/tests/fixtures/frontier/deepseek-ai__DeepSeek-V4-Flash.json"},
    {"model.gguf", KVCALC_BINARY_DIR "/engines/gguf/L01.gguf"},
    {"./model.gguf", KVCALC_BINARY_DIR "/engines/gguf/L01.gguf"},
    {"./gpt-oss-20b-mxfp4.gguf", KVCALC_BINARY_DIR "/engines/gguf/L06.gguf"},
    {"./llama3-8b-q4_0.gguf", KVCALC_BINARY_DIR "/engines/ollama/llama3-8b-q4_0.gguf"},
    {"~/.ollama/models/blobs/sha256-...", KVCALC_BINARY_DIR "/engines/ollama/llama3-8b-q4_0.gguf"},
    {"vllm.log", KVCALC_SOURCE_DIR "/tests/logs/vllm-d14-tp4.log"}, /* names a preset */
    {"llama.log", KVCALC_SOURCE_DIR "/tests/logs/llamacpp-l01.log"},
    {"sglang-metrics.prom",
     KVCALC_SOURCE_DIR "/tests/fixtures/metrics/sglang_docs_production_metrics_llama31_8b.prom"},
    {"vllm-metrics.prom", KVCALC_SOURCE_DIR "/tests/fixtures/metrics/vllm_v1_nim_qwen3vl235b_tp2_grep.prom"},
    {"scrapes.prom", KVCALC_SOURCE_DIR "/tests/fixtures/two-scrapes-handmade.prom"},
    {"conv.csv", KVCALC_SOURCE_DIR "/tests/fixtures/traces/AzureLLMInferenceTrace_conv.csv"},
    {"./Qwen3-8B", NULL}, /* the scratch folder's model folder (made below) */
};

/* A model folder (config.json, no safetensors) and a Hugging Face cache holding
 * Qwen/Qwen3-8B-FP8, in the scratch folder. */
static void make_scratch(void)
{
    char path[1024], cmd[2048];
    assert_non_null(mkdtemp(scratch));
    snprintf(path, sizeof path, "%s/Qwen3-8B", scratch);
    assert_int_equal(mkdir(path, 0755), 0);
    snprintf(cmd, sizeof cmd,
             "cp '%s/data/models/Qwen__Qwen3-8B.json' '%s/Qwen3-8B/config.json' && "
             "mkdir -p '%s/hub/models--Qwen--Qwen3-8B-FP8/snapshots/abc' "
             "'%s/hub/models--Qwen--Qwen3-8B-FP8/refs' && "
             "cp '%s/data/models/Qwen__Qwen3-32B-FP8.json' "
             "'%s/hub/models--Qwen--Qwen3-8B-FP8/snapshots/abc/config.json' && "
             "printf abc > '%s/hub/models--Qwen--Qwen3-8B-FP8/refs/main'",
             KVCALC_SOURCE_DIR, scratch, scratch, scratch, KVCALC_SOURCE_DIR, scratch, scratch);
    assert_int_equal(system(cmd), 0);
    snprintf(path, sizeof path, "%s/hub", scratch);
    assert_int_equal(setenv("HF_HUB_CACHE", path, 1), 0);
}

/* Splits one command line into words (after "kvcalc"); returns the count, or -1 when the
 * line is not a command. */
static int split(const char *line, char words[MAX_WORDS][WORD_CAP])
{
    const char *p = line;
    if (strncmp(p, "$ ", 2) == 0)
        p += 2;
    if (strncmp(p, "kvcalc -", 8) != 0)
        return -1;
    p += 7;
    int n = 0;
    while (*p && n < MAX_WORDS) {
        while (*p == ' ')
            p++;
        if (!*p || *p == '#' || *p == '|' || *p == '>' || strncmp(p, "&&", 2) == 0)
            break;
        size_t k = 0;
        while (*p && *p != ' ' && k + 1 < WORD_CAP) {
            if (*p == '\'') {
                for (p++; *p && *p != '\'' && k + 1 < WORD_CAP; p++)
                    words[n][k++] = *p;
                if (*p == '\'')
                    p++;
            } else {
                words[n][k++] = *p++;
            }
        }
        words[n][k] = '\0';
        if (k > 0 && words[n][k - 1] == ':')
            return -1; /* "kvcalc --from-log FILE: vLLM ..." is what a command printed */
        n++;
    }
    return n;
}

/* The word as the command is run: a test file for an example file, the source folder's
 * files for tests/ and data/, the build's for build/tests/. */
static const char *real_word(const char *w, char *buf, size_t cap)
{
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        if (strcmp(w, files[i].shown) == 0) {
            if (!files[i].real)
                snprintf(buf, cap, "%s/%s", scratch, w + 2);
            else
                snprintf(buf, cap, "%s", files[i].real);
            return buf;
        }
    int n; /* checked: a path longer than buf fails the test rather than run cut */
    if (strncmp(w, "build/tests/", 12) == 0)
        n = snprintf(buf, cap, "%s/%s", KVCALC_BINARY_DIR, w + 12);
    else if (strncmp(w, "tests/", 6) == 0 || strncmp(w, "data/", 5) == 0)
        n = snprintf(buf, cap, "%s/%s", KVCALC_SOURCE_DIR, w);
    else
        n = snprintf(buf, cap, "%s", w);
    if (n < 0 || (size_t)n >= cap)
        fail_msg("a word of a command is too long for the test's buffer: %.60s...", w);
    return buf;
}

/* A "$ kvcalc ..." command in a fence is followed by what it prints: those lines must be its
 * output, each in turn (blank lines aside - the page's reader splits on them). `shown` is
 * the command's stdout; returns the lines matched, or fails the test. */
static const char *next_line(const char *p, char *line, size_t cap)
{
    while (*p == '\n')
        p++;
    if (!*p)
        return NULL;
    size_t n = 0;
    while (p[n] && p[n] != '\n')
        n++;
    snprintf(line, cap, "%.*s", (int)(n < cap ? n : cap - 1), p);
    return p + n;
}

/* text with every `from` replaced by `to` (malloc'ed; text freed). */
static char *replaced(char *text, const char *from, const char *to)
{
    size_t nf = strlen(from), nt = strlen(to), count = 0;
    if (nf == 0 || strcmp(from, to) == 0)
        return text;
    for (const char *p = text; (p = strstr(p, from)) != NULL; p += nf)
        count++;
    char *out = malloc(strlen(text) + count * (nt > nf ? nt - nf : 0) + 1);
    assert_non_null(out);
    char *o = out;
    for (const char *p = text, *q; ; p = q + nf) {
        q = strstr(p, from);
        size_t n = q ? (size_t)(q - p) : strlen(p);
        memcpy(o, p, n);
        o += n;
        if (!q)
            break;
        memcpy(o, to, nt);
        o += nt;
    }
    *o = '\0';
    free(text);
    return out;
}

static int run_page(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", KVCALC_SOURCE_DIR, name);
    char *doc = read_file(path, NULL);
    assert_non_null(doc);
    int commands = 0, fence = 0;
    char joined[4096] = "";
    char *save = NULL;
    char *shown = NULL;       /* the last "$ kvcalc" command's stdout, while its lines follow */
    const char *at = NULL;    /* where in it the next shown line must be */
    char shown_cmd[4096] = "";
    for (char *line = strtok_r(doc, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (strncmp(line, "```", 3) == 0) {
            fence = !fence;
            free(shown);
            shown = NULL;
            continue;
        }
        if (shown && fence && strncmp(line, "$ ", 2) != 0) { /* what the command printed */
            char want[4096];
            const char *next = at ? next_line(at, want, sizeof want) : NULL;
            if (!next || strcmp(want, line) != 0)
                fail_msg("%s: '%s' prints\n  %s\nwhere the page shows\n  %s", name, shown_cmd,
                         next ? want : "(nothing more)", line);
            at = next;
            continue;
        }
        int indented = strncmp(line, "    ", 4) == 0;
        if (!fence && !indented && !joined[0])
            continue;
        const char *text = line;
        while (*text == ' ')
            text++;
        size_t len = strlen(text);
        int more = len > 0 && text[len - 1] == '\\';
        strncat(joined, text, sizeof joined - strlen(joined) - 1 - (more ? 0 : 0));
        if (more) {
            joined[strlen(joined) - 1] = ' ';
            continue;
        }
        static char words[MAX_WORDS][WORD_CAP];
        int n = split(joined, words);
        if (n >= 0) {
            static char real[MAX_WORDS][WORD_CAP];
            const char *argv[MAX_WORDS + 1];
            for (int i = 0; i < n; i++)
                argv[i] = real_word(words[i], real[i], WORD_CAP);
            argv[n] = NULL;
            run_result r;
            run_kvcalc(argv, &r);
            if (r.status != 0)
                fail_msg("%s: '%s': exit %d: %s", name, joined, r.status, r.err);
            free(shown);
            shown = NULL;
            if (fence && strncmp(joined, "$ ", 2) == 0) { /* its output follows on the page */
                shown = r.out;
                r.out = NULL;
                for (int i = 0; i < n; i++) /* the page's words, not the test files' paths */
                    shown = replaced(shown, real[i], words[i]);
                at = shown;
                snprintf(shown_cmd, sizeof shown_cmd, "%s", joined);
            }
            run_free(&r);
            commands++;
        }
        joined[0] = '\0';
    }
    free(shown);
    free(doc);
    print_message("  %-18s %d commands\n", name, commands);
    return commands;
}

static void every_command_runs(void **state)
{
    (void)state;
    make_scratch();
    char cwd[1024];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(scratch), 0); /* --plot, --format csv > ...: written here */
    int total = run_page("README.md");
    DIR *dir = opendir(KVCALC_SOURCE_DIR "/docs");
    assert_non_null(dir);
    for (struct dirent *e = readdir(dir); e; e = readdir(dir)) {
        size_t len = strlen(e->d_name);
        if (len > 3 && strcmp(e->d_name + len - 3, ".md") == 0) {
            char name[300];
            snprintf(name, sizeof name, "docs/%s", e->d_name);
            total += run_page(name);
        }
    }
    closedir(dir);
    assert_int_equal(chdir(cwd), 0);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", scratch);
    assert_int_equal(system(cmd), 0);
    assert_true(total >= 50);
}

/* README's usage-error example is what the binary prints (issue 19, item 20: it quoted a
 * message for `--context 4k`, which kvcalc takes as 4,000 tokens). */
static void readme_usage_error_is_current(void **state)
{
    (void)state;
    run_result r;
    run_kvcalc((const char *const[]){"--context", "abc", NULL}, &r);
    assert_int_equal(r.status, 2);
    char first[512];
    const char *nl = strchr(r.err, '\n');
    assert_non_null(nl);
    snprintf(first, sizeof first, "%.*s", (int)(nl - r.err), r.err);
    run_free(&r);
    char *readme = read_file(KVCALC_SOURCE_DIR "/README.md", NULL);
    assert_non_null(readme);
    /* the page wraps the message's backticked text over its lines: compare without them */
    char flat[1 << 16];
    size_t n = 0;
    for (const char *p = readme; *p && n + 1 < sizeof flat; p++)
        flat[n++] = *p == '\n' ? ' ' : *p;
    flat[n] = '\0';
    free(readme);
    char want[600];
    snprintf(want, sizeof want, "`%s`", first);
    if (!strstr(flat, want))
        fail_msg("README.md does not quote %s", want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(every_command_runs),
                                       cmocka_unit_test(readme_usage_error_is_current)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
