/*
 * test_plan.c - fleet planning through the real binary: the lesson's decision example,
 * the levers, --require in CI, sweeps (and that their rows agree with single runs), and
 * the SVG chart (its numbers against the JSON; rendered when rsvg-convert is installed).
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kvcalc_json.h"
#include "run.h"

#define RUN(r, ...) run_kvcalc((const char *const[]){__VA_ARGS__, NULL}, r)

static kv_json_tok toks[4096];

static double num_at(const char *text, size_t obj, const char *key)
{
    size_t v = kv_json_find(text, toks, obj, key);
    if (v == 0 || toks[v].type != KV_JSON_NUMBER)
        fail_msg("no number at %s", key);
    return kv_json_number(text, &toks[v]);
}

static long parse_json(const char *text)
{
    kv_json_error err;
    long n = kv_json_parse(text, strlen(text), toks, 4096, 16, &err);
    if (n < 0)
        fail_msg("bad JSON %zu:%zu %s", err.line, err.col, err.msg);
    return n;
}

/* The lesson: "300 concurrent requests at 8k context: 448 MiB x 300 = ~131 GiB of KV,
 * + weights + overhead (~13 + 2 GiB) = ~146 GiB; one 48 GiB card fits ~75, so
 * ceil(300 / 75) = 4 replicas." */
static void the_lessons_decision(void **state)
{
    (void)state;
    run_result r;
    RUN(&r, "--context", "8192", "--target-concurrency", "300");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "Capacity plan: 300 concurrent requests @ 8,192 context\n"));
    assert_non_null(strstr(r.out, "  KV cache   : 300 x 448.0 MiB = 131.25 GiB\n"));
    assert_non_null(strstr(r.out, "  In all     : 131.25 GiB KV + 13.04 GiB weights + 2 GiB "
                                  "overhead = 146.29 GiB\n"));
    assert_non_null(strstr(r.out, "  This GPU   : 48 GiB holds ~75 at once -> ceil(300 / 75) = 4 "
                                  "replicas (4 GPUs)\n"));
    /* B200: 183,359 MiB = 192,265,830,400 B - 14e9 - 2^31 = 176,118,346,752 B free;
     * / 469,762,048 = 374.9 >= 300. H200: 143,771 MiB -> 134,609,236,992 free -> 286 < 300 */
    assert_non_null(strstr(r.out, "the smallest that holds all 300 is the B200 (179.06 GiB)"));
    run_free(&r);

    RUN(&r, "--context", "8192", "--target-concurrency", "300", "--format", "json");
    parse_json(r.out);
    /* 300 x 469,762,048 = 140,928,614,400; + 14,000,000,000 + 2,147,483,648 */
    assert_true(num_at(r.out, 0, "kv_bytes_needed") == 140928614400.0);
    assert_true(num_at(r.out, 0, "total_bytes_needed") == 157076098048.0);
    assert_true(num_at(r.out, 0, "replicas") == 4);
    assert_true(num_at(r.out, 0, "target_concurrency") == 300);
    assert_int_equal(toks[kv_json_find(r.out, toks, 0, "fits_one_gpu")].type, KV_JSON_FALSE);
    assert_true(kv_json_string_eq(r.out, &toks[kv_json_find(r.out, toks, 0, "smallest_gpu")], "B200"));
    /* the options: sorted by GPUs, then memory; GPUs = replicas x TP */
    size_t opts = kv_json_find(r.out, toks, 0, "plan_options");
    assert_int_equal(toks[opts].type, KV_JSON_ARRAY);
    assert_true(toks[opts].size > 10);
    double last_gpus = 0, last_gib = 0;
    size_t o = opts + 1;
    for (size_t i = 0; i < toks[opts].size; i++, o = toks[o].next) {
        double gpus = num_at(r.out, o, "gpus"), gib = num_at(r.out, o, "gib");
        assert_true(gpus == num_at(r.out, o, "replicas") * num_at(r.out, o, "tp"));
        assert_true(gpus > last_gpus || (gpus == last_gpus && gib >= last_gib));
        last_gpus = gpus;
        last_gib = gib;
    }
    run_free(&r);

    /* a load one card holds: 50 at 4k on 48 GiB (150 fit) */
    EXPECT_STDOUT("true\n", "--target-concurrency", "50", "--get", "fits_one_gpu");
    /* without a target, plan keys are null in the JSON document (--get refuses them) */
    RUN(&r, "--format", "json");
    assert_non_null(strstr(r.out, "\"replicas\": null,"));
    run_free(&r);
}

static void levers(void **state)
{
    (void)state;
    run_result r;
    RUN(&r, "--context", "8192", "--target-concurrency", "300", "--levers", "--offload-gib", "64",
        "--format", "json");
    parse_json(r.out);
    size_t l = kv_json_find(r.out, toks, 0, "levers");
    assert_int_equal(toks[l].size, 6);
    /* as given 75 (4 replicas); half the context 150 (2); fp8 KV 150 (2); int8 weights:
     * (51,539,607,552 - 7e9 - 2^31) / 469,762,048 = 90.2 -> 90 (4); int4: (... - 3.5e9 ...)
     * = 45,892,123,904 / 469,762,048 = 97.7 -> 97 (4); + 64 GiB offload: (35,392,123,904 +
     * 68,719,476,736) / 469,762,048 = 221.6 -> 221 (2) */
    static const double conc[] = {75, 150, 150, 90, 97, 221};
    static const double reps[] = {4, 2, 2, 4, 4, 2};
    size_t e = l + 1;
    for (size_t i = 0; i < 6; i++, e = toks[e].next) {
        assert_true(num_at(r.out, e, "max_concurrency") == conc[i]);
        assert_true(num_at(r.out, e, "replicas") == reps[i]);
    }
    run_free(&r);
    RUN(&r, "--context", "8192", "--levers", "--offload-gib", "64");
    assert_non_null(strstr(r.out, "  half the context               4,096    224.0 MiB   32.96 GiB "
                                  "            150\n"));
    assert_non_null(strstr(r.out, "Offload buys capacity, not speed"));
    run_free(&r);
}

static void requirements(void **state)
{
    (void)state;
    run_result r;
    /* the lesson's table: 37 at 16,384 */
    RUN(&r, "--context", "16384", "--require", "max_concurrency>=64");
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.out, "Max concurrent requests @ 16,384 context:  ~37"));
    assert_string_equal(r.err, "kvcalc: requirement failed: max_concurrency>=64 (got 37)\n");
    run_free(&r);
    RUN(&r, "--context", "16384", "--require", "max_concurrency >= 30", "--require", "fits==1",
        "--require", "kv_bytes_per_token==57344", "--get", "max_concurrency");
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "37\n");
    assert_int_equal(r.err_len, 0);
    run_free(&r);
    /* two failures, two lines; a null value meets nothing: 70B at fp16 is 140e9 B of
     * weights, over 80 GiB = 85,899,345,920 B, so no replica holds one request */
    RUN(&r, "--params-b", "70", "--gpu-mem-gib", "80", "--target-concurrency", "10", "--require",
        "max_concurrency>0", "--require", "replicas<=4", "--get", "fits");
    assert_int_equal(r.status, 1);
    assert_string_equal(r.out, "false\n");
    assert_string_equal(r.err, "kvcalc: requirement failed: max_concurrency>0 (got 0)\n"
                               "kvcalc: requirement failed: replicas<=4 (got null)\n");
    run_free(&r);
    /* a key of a section that was not asked for is a usage error, not "got null" */
    RUN(&r, "--require", "gpus_needed<=16");
    assert_int_equal(r.status, 2);
    assert_int_equal(r.out_len, 0);
    assert_string_equal(r.err, "kvcalc: --require: gpus_needed needs --target-concurrency\n"
                               "Try 'kvcalc --help' for more information.\n");
    run_free(&r);
    RUN(&r, "--require", "num_gpu_blocks>=1");
    assert_int_equal(r.status, 2);
    assert_string_equal(r.err, "kvcalc: --require: num_gpu_blocks needs --engine vllm\n"
                               "Try 'kvcalc --help' for more information.\n");
    run_free(&r);
    RUN(&r, "--get", "replicas");
    assert_int_equal(r.status, 2);
    assert_memory_equal(r.err, "kvcalc: --get: replicas needs --target-concurrency\n", 51);
    run_free(&r);
    /* the whole number is read: 1 followed by 70 zeros, times 10^-70, is 1 (cut at 63
     * characters it was 10^62, and the requirement passed) */
#define ONE_WRITTEN_LONG "10000000000000000000000000000000000000000000000000000000000000000000000e-70"
    RUN(&r, "--require", "max_concurrency<=" ONE_WRITTEN_LONG "");
    assert_int_equal(r.status, 1);
    assert_string_equal(r.err, "kvcalc: requirement failed: max_concurrency<=" ONE_WRITTEN_LONG " (got 150)\n");
    run_free(&r);
    static const char *const bad[] = {"max_concurrency", "max_concurrency>=", ">=4",
                                      "max_concurrency=>4", "nope>=1", "model==1",
                                      "max_concurrency>=4x"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        RUN(&r, "--require", bad[i]);
        assert_int_equal(r.status, 2);
        assert_int_equal(r.out_len, 0);
        assert_memory_equal(r.err, "kvcalc: --require: ", 19);
        run_free(&r);
    }
}

static size_t csv_rows(const char *csv)
{
    return count_lines(csv) - 1;
}

static void sweeps(void **state)
{
    (void)state;
    run_result r, one;
    /* 1024, 2048, ..., 131072: 8 contexts x 2 GPUs */
    RUN(&r, "--sweep", "context=1024..131072*2", "--sweep", "gpu=h100,l40s", "--format", "csv");
    assert_int_equal(r.status, 0);
    assert_memory_equal(r.out, "context,gpu,kv_bytes_per_token,kv_bytes_per_request,"
                               "free_kv_bytes,max_concurrency,fits,status\n",
                        86);
    assert_int_equal(csv_rows(r.out), 16);
    /* each row agrees with a single run */
    const char *row = strstr(r.out, "\n8192,L40S,");
    assert_non_null(row);
    RUN(&one, "--context", "8192", "--gpu", "l40s", "--get", "max_concurrency");
    char want[64];
    snprintf(want, sizeof want, ",%.*s,true,ok\n", (int)(strlen(one.out) - 1), one.out);
    const char *eol = strchr(row + 1, '\n');
    assert_true(strstr(row, want) != NULL && strstr(row, want) < eol + 1);
    run_free(&one);
    run_free(&r);

    /* arithmetic range and lists; JSON lines */
    RUN(&r, "--sweep", "context=1000..3000+1000,8192", "--sweep", "dtype=fp16,fp8", "--format",
        "json");
    assert_int_equal(count_lines(r.out), 8);
    for (const char *line = r.out; *line; line = strchr(line, '\n') + 1) {
        kv_json_error err;
        size_t len = (size_t)(strchr(line, '\n') - line);
        assert_true(kv_json_parse(line, len, toks, 4096, 4, &err) > 0);
    }
    /* 2 x 28 x 4 x 128 x 1 = 28,672 B per token at fp8 */
    assert_non_null(strstr(r.out, "{\"context\": 3000, \"dtype\": \"fp8\", \"kv_bytes_per_token\": "
                                  "28672,"));
    run_free(&r);

    /* models, and a point that is invalid for one of them */
    RUN(&r, "--sweep", "model=qwen3-8b,gpt-oss-20b", "--sweep", "tp=1,3", "--format", "csv");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "Qwen/Qwen3-8B,1,147456,"));
    assert_non_null(strstr(r.out, "Qwen/Qwen3-8B,3,,,,,,error\n"));
    run_free(&r);

    RUN(&r, "--sweep", "context=1,2", "--get", "max_concurrency");
    assert_int_equal(r.status, 2);
    assert_memory_equal(r.err, "kvcalc: --sweep: prints one row per point", 41);
    run_free(&r);

    static const char *const bad[][2] = {{"--sweep", "nope=1,2"},  {"--sweep", "context"},
                                         {"--sweep", "context=0"}, {"--sweep", "context=8..2*0"},
                                         {"--sweep", "gpu=h1000"}, {"--sweep", "dtype=fp8..fp4*2"},
                                         {"--sweep", "model=nobody"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        run_kvcalc((const char *const[]){bad[i][0], bad[i][1], NULL}, &r);
        assert_int_equal(r.status, 2);
        assert_int_equal(r.out_len, 0);
        assert_int_equal(count_lines(r.err), 2);
        run_free(&r);
    }
}

/* The value of attribute `name` inside the element with id `id`. */
static double svg_attr(const char *svg, const char *id, const char *name)
{
    char key[64];
    snprintf(key, sizeof key, "id=\"%s\"", id);
    const char *el = strstr(svg, key);
    assert_non_null(el);
    snprintf(key, sizeof key, "%s=\"", name);
    const char *at = strstr(el, key);
    assert_non_null(at);
    return strtod(at + strlen(key), NULL);
}

static void svg_plot(void **state)
{
    (void)state;
    char path[] = "/tmp/kvcalc-plot-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    run_result r, j;
    RUN(&r, "--model", "gemma-3-27b-it", "--gpu", "h100", "--context", "32768",
        "--target-concurrency", "20", "--plot", path);
    assert_int_equal(r.status, 0);
    RUN(&j, "--model", "gemma-3-27b-it", "--gpu", "h100", "--context", "32768",
        "--target-concurrency", "20", "--format", "json");
    parse_json(j.out);
    char *svg = read_file(path, NULL);
    assert_non_null(svg);
    assert_memory_equal(svg, "<?xml", 5);
    assert_non_null(strstr(svg, "</svg>\n"));
    assert_null(strstr(svg, "href")); /* self-contained */
    assert_null(strstr(svg, "<script"));
    /* its numbers are the JSON's */
    assert_true(svg_attr(svg, "setting", "data-context") == 32768);
    assert_true(svg_attr(svg, "setting", "data-max-concurrency") ==
                num_at(j.out, 0, "max_concurrency"));
    assert_true(svg_attr(svg, "memory", "data-gpu-mem-bytes") == num_at(j.out, 0, "gpu_mem_bytes"));
    assert_true(svg_attr(svg, "memory", "data-weights-bytes") == num_at(j.out, 0, "weights_bytes"));
    assert_true(svg_attr(svg, "memory", "data-kv-in-use-bytes") ==
                num_at(j.out, 0, "max_concurrency") * num_at(j.out, 0, "kv_bytes_per_request"));
    assert_true(svg_attr(svg, "target", "data-target") == 20);
    free(svg);
    run_free(&r);
    run_free(&j);

    /* does it render? with rsvg-convert when it is installed */
    if (system("command -v rsvg-convert >/dev/null 2>&1") != 0) {
        unlink(path);
        skip();
    }
    char cmd[256], png[64];
    snprintf(png, sizeof png, "%s.png", path);
    snprintf(cmd, sizeof cmd, "rsvg-convert '%s' -o '%s'", path, png);
    assert_int_equal(system(cmd), 0);
    size_t len = 0;
    char *img = read_file(png, &len);
    assert_non_null(img);
    assert_true(len > 1000);
    assert_memory_equal(img, "\x89PNG", 4);
    free(img);
    unlink(png);
    unlink(path);
}

static void plot_write_error(void **state)
{
    (void)state;
    run_result r;
    RUN(&r, "--plot", "/nonexistent/dir/x.svg");
    assert_int_equal(r.status, 3);
    assert_memory_equal(r.err, "kvcalc: /nonexistent/dir/x.svg: cannot write: ", 46);
    run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_lessons_decision), cmocka_unit_test(levers),
        cmocka_unit_test(requirements),         cmocka_unit_test(sweeps),
        cmocka_unit_test(svg_plot),             cmocka_unit_test(plot_write_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
