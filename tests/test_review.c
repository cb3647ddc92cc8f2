/*
 * test_review.c - every wrong answer found when kvcalc 1 was reviewed and attacked, each
 * with the regression test that failed before kvcalc 2 fixed it, and the properties that
 * keep them fixed: a sweep row equals the single run with the same flags, on every axis.
 * All through the real binary, as a user or a CI job runs it.
 */
#define _POSIX_C_SOURCE 200809L /* mkstemp, fdopen: the tests, not the product */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"

#define RUN(r, ...) run_kvcalc((const char *const[]){__VA_ARGS__, NULL}, r)

/* Exit 2, nothing on stdout, one error line then the hint, and the error starts so. */
static void expect_usage(run_result *r, const char *start)
{
    assert_int_equal(r->status, 2);
    assert_int_equal(r->out_len, 0);
    assert_memory_equal(r->err, start, strlen(start));
    assert_int_equal(count_lines(r->err), 2);
    assert_non_null(strstr(r->err, "\nTry 'kvcalc --help' for more information.\n"));
}

/* The chosen engine answers. 57,344 B/token x 224,694 tokens = 12,884,852,736 B a request.
 * Ideal: 48 GiB - 14e9 B - 2 GiB = 35,392,123,904 B free -> floor(2.75) = 2 requests.
 * vLLM at --gpu-memory-utilization 0.5: 25,769,803,776 B - 14e9 B of weights - 0.45 GiB
 * activation (0.25 + 0.1 x 2048/1024) - 0.1 GiB non-torch = 11,179,245,773.6 B available,
 * less than one request: vLLM refuses to start, so the answer is 0 and fits is false. */
static void the_engine_drives_the_answer(void **state)
{
    (void)state;
    run_result r;
#define REFUSED "--engine", "vllm", "--gpu-memory-utilization", "0.5", "--context", "224694"
    EXPECT_STDOUT("0\n", REFUSED, "--get", "max_concurrency");
    EXPECT_STDOUT("false\n", REFUSED, "--get", "fits");
    EXPECT_STDOUT("2\n", REFUSED, "--get", "ideal_max_concurrency");
    EXPECT_STDOUT("true\n", REFUSED, "--get", "ideal_fits");
    RUN(&r, REFUSED, "--require", "max_concurrency>=2");
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.out, "Max concurrent requests @ 224,694 context:  ~0  (by vLLM's "
                                  "rules; the lesson's ideal packing: ~2)\n"));
    assert_non_null(strstr(r.out, "ValueError: To serve at least one request"));
    assert_string_equal(r.err, "kvcalc: requirement failed: max_concurrency>=2 (got 0)\n");
    run_free(&r);
    /* the rows, the plan and the levers follow vLLM too: at 224,694 tokens none fits */
    RUN(&r, REFUSED, "--target-concurrency", "10", "--format", "json");
    assert_non_null(strstr(r.out, "\"engine\": \"vllm\","));
    assert_non_null(strstr(r.out, "\"replicas\": null,"));
    assert_non_null(strstr(r.out, "{\"context\": 224694, \"kv_bytes_per_request\": 12884852736, "
                                  "\"max_concurrency\": 0, \"is_setting\": true}"));
    run_free(&r);
#undef REFUSED
    /* without --engine, the lesson's answer: fits is a whole request, never just "room" */
    EXPECT_STDOUT("false\n", "--context", "1000000", "--get", "fits");
    EXPECT_STDOUT("ideal\n", "--get", "engine");
}

#define SGLANG_AXIS 3
/* Every sweepable input: each row of a sweep equals the single run with that flag. */
static const struct {
    const char *flag, *a, *b;
    int vllm; /* 1: the axis needs --engine vllm; 2: --engine trtllm; SGLANG_AXIS: sglang */
} axes[] = {
    {"layers", "12", "40", 0},
    {"kv-heads", "2", "8", 0},
    {"head-dim", "64", "256", 0},
    {"dtype", "fp8", "bf16", 0},
    {"kv-cache-dtype", "fp8", "float16", 1},
    {"params-b", "1", "70", 0},
    {"weight-dtype", "int4", "fp32", 0},
    {"gpu-mem-gib", "24", "80", 0},
    {"overhead-gib", "0", "5.5", 0},
    {"context", "1000", "100000", 0},
    {"max-model-len", "2048", "32768", 1},
    {"prefix-tokens", "0", "4096", 0},
    {"prefix-requests", "1", "500", 0},
    {"tp", "2", "4", 0},
    {"engine", "ideal", "vllm", 0},
    {"gpu-memory-utilization", "0.5", "0.95", 1},
    {"block-size", "32", "128", 1},
    {"max-num-batched-tokens", "512", "16384", 1},
    {"weights-gib", "10", "20", 1},
    {"activation-gib", "0", "3", 1},
    {"non-torch-gib", "0", "1", 1},
    {"cuda-graph-gib", "0", "1", 1},
    {"kv-cache-memory-gib", "5", "30", 1},
    {"num-gpu-blocks-override", "100", "5000", 1},
    {"vllm-version", "0.10", "0.21", 1},
    {"mamba-cache-mode", "none", "align", 1},
    {"free-gpu-memory-fraction", "0.5", "0.95", 2},
    {"tokens-per-block", "16", "64", 2},
    {"max-tokens", "1000", "100000", 2},
    {"free-mem-gib", "5", "30", 2},
    {"gpu", "l40s", "h100", 0},
    {"model", "qwen3-8b", "gemma-3-27b-it", 0},
    {"mem-fraction-static", "0.7", "0.9", SGLANG_AXIS},
    {"avail-mem-before-load-gib", "70", "78.5", SGLANG_AXIS},
    {"avail-mem-after-load-gib", "50", "62.25", SGLANG_AXIS},
    {"page-size", "1", "64", SGLANG_AXIS},
    {"max-total-tokens", "1000", "100000", SGLANG_AXIS},
    {"chunked-prefill-size", "2048", "16384", SGLANG_AXIS},
    {"cuda-graph-max-bs", "8", "512", SGLANG_AXIS},
    {"sglang-version", "0.4.1.post7", "0.5.3rc2", SGLANG_AXIS},
    {"context-length", "2048", "32768", SGLANG_AXIS},
    {"tp-size", "1", "2", SGLANG_AXIS},
};

static const char *const columns[] = {"kv_bytes_per_token", "kv_bytes_per_request",
                                      "free_kv_bytes", "max_concurrency", "fits"};

/* Field `col` (0-based) of a CSV line. */
static void csv_field(const char *line, size_t col, char *out, size_t cap)
{
    for (size_t c = 0; c < col; c++)
        line = strchr(line, ',') + 1;
    size_t n = strcspn(line, ",\n");
    snprintf(out, cap, "%.*s", (int)(n < cap - 1 ? n : cap - 1), line);
}

static void sweep_rows_equal_single_runs(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof axes / sizeof axes[0]; i++) {
        /* a model with a sliding window and a GPU preset, so that every input matters */
        char sweep[128];
        snprintf(sweep, sizeof sweep, "%s=%s,%s", axes[i].flag, axes[i].a, axes[i].b);
        const char *base[8] = {"--model", "qwen3-8b", "--gpu", "a100", NULL};
        size_t nb = 4;
        if (strcmp(axes[i].flag, "model") == 0 || strcmp(axes[i].flag, "gpu") == 0)
            nb = 0; /* the axis sets it itself */
        static const char *const engine_of[] = {NULL, "vllm", "trtllm", "sglang"};
        if (axes[i].vllm) { /* an engine's own flag: that engine */
            base[nb++] = "--engine";
            base[nb++] = engine_of[axes[i].vllm];
        }
        const char *args[16];
        size_t n = 0;
        for (size_t k = 0; k < nb; k++)
            args[n++] = base[k];
        args[n++] = "--sweep";
        args[n++] = sweep;
        args[n++] = "--format";
        args[n++] = "csv";
        args[n] = NULL;
        run_result sw;
        run_kvcalc(args, &sw);
        if (sw.status != 0)
            fail_msg("--sweep %s: exit %d: %s", sweep, sw.status, sw.err);
        const char *line = strchr(sw.out, '\n') + 1; /* past the header */
        for (int v = 0; v < 2; v++, line = strchr(line, '\n') + 1) {
            char flag[64];
            snprintf(flag, sizeof flag, "--%s", axes[i].flag);
            for (size_t c = 0; c < sizeof columns / sizeof columns[0]; c++) {
                const char *one[16];
                size_t m = 0;
                for (size_t k = 0; k < nb; k++)
                    one[m++] = base[k];
                one[m++] = flag;
                one[m++] = v == 0 ? axes[i].a : axes[i].b;
                one[m++] = "--get";
                one[m++] = columns[c];
                one[m] = NULL;
                run_result single;
                run_kvcalc(one, &single);
                char cell[128], want[128];
                csv_field(line, 1 + c, cell, sizeof cell);
                snprintf(want, sizeof want, "%.*s", (int)strcspn(single.out, "\n"), single.out);
                if (single.status != 0 || strcmp(cell, want) != 0)
                    fail_msg("--sweep %s row %d %s: sweep '%s', single run '%s' (exit %d)", sweep,
                             v, columns[c], cell, want, single.status);
                run_free(&single);
            }
        }
        run_free(&sw);
    }
}

/* A point where only the last axis moved writes that one input into the last point's spec
 * (issue 22); a carry, an "auto" value and a flag that changes other inputs go through the
 * whole builder. Each row equals the single run either way: here "auto" after fp8 gives the
 * model's bf16 back (2 B: 147,456 B a token for Qwen3-8B, fp8 73,728), and the rows after
 * the carry (tp 2) are halved. */
static void sweep_one_input_path(void **state)
{
    (void)state;
    run_result r;
    RUN(&r, "--model", "qwen3-8b", "--sweep", "tp=1,2", "--sweep", "dtype=auto,fp8,auto",
        "--format", "csv");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\n1,bf16,147456,"));
    assert_non_null(strstr(r.out, "\n1,fp8,73728,"));
    assert_non_null(strstr(r.out, "\n2,bf16,73728,"));
    assert_non_null(strstr(r.out, "\n2,fp8,36864,"));
    assert_int_equal(count_lines(r.out), 7);
    char *first = strstr(r.out, "\n1,bf16,"), *third = strstr(first + 1, "\n1,bf16,");
    assert_non_null(third); /* the same row twice: auto restored the model's */
    assert_memory_equal(first, third, strcspn(first + 1, "\n") + 1);
    run_free(&r);
    /* a flag that clears other inputs (--params-b drops the estimate) keeps the builder */
    RUN(&r, "--model", "qwen3-8b", "--params-b", "8", "--sweep", "context=1000,2000",
        "--format", "csv");
    assert_non_null(strstr(r.out, "\n2000,147456,294912000,"));
    run_free(&r);
}

/* The axes kvcalc 1 ignored or mis-resolved. */
static void sweep_axes_take_effect(void **state)
{
    (void)state;
    run_result r;
    /* vLLM's GPU total follows a swept --gpu-mem-gib (kvcalc 1 kept the 48 GiB default):
     * 0.9 x 24 GiB = 23,192,823,398.4 B - 14e9 B of weights - 0.45 GiB of activation
     * (483,183,820.8 B) - 0.06 GiB non-torch under 70 GiB (64,424,509.44 B)
     * = 8,645,215,068.16 B */
    RUN(&r, "--engine", "vllm", "--gpu-mem-gib", "24", "--get", "available_kv_bytes");
    assert_memory_equal(r.out, "8645215068.1", 12); /* then the double's own last digits */
    run_free(&r);
    RUN(&r, "--engine", "vllm", "--sweep", "gpu-mem-gib=24,80", "--sweep", "tp=1", "--format",
        "json");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "{\"gpu_mem_gib\": 24, \"tensor_parallel_size\": 1, "));
    run_free(&r);
    /* --params-b over a model's estimate: 1e9 x 2 B and 70e9 x 2 B of weights */
    RUN(&r, "--model", "qwen3-8b", "--sweep", "params-b=1,70", "--format", "csv");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\n1,"));
    EXPECT_STDOUT("2000000000\n", "--model", "qwen3-8b", "--params-b", "1", "--get",
                  "weights_bytes");
    run_free(&r);
    /* --weight-dtype over a quantized checkpoint: every weight in that dtype */
    RUN(&r, "--model", "gpt-oss-120b", "--sweep", "weight-dtype=fp16,int4", "--format", "json");
    assert_int_equal(r.status, 0);
    char single[64];
    run_result one;
    RUN(&one, "--model", "gpt-oss-120b", "--weight-dtype", "int4", "--get", "free_kv_bytes");
    snprintf(single, sizeof single, "\"free_kv_bytes\": %.*s,", (int)strcspn(one.out, "\n"),
             one.out);
    assert_non_null(strstr(r.out, single));
    run_free(&one);
    run_free(&r);
    /* an axis whose flag needs another engine is a usage error, as on a single run */
    RUN(&r, "--sweep", "block-size=16,32");
    expect_usage(&r, "kvcalc: --block-size: applies only with --engine vllm\n");
    run_free(&r);
}

/* Ranges: exact integers inside [A, B], no duplicates, no wrap near 2^63. */
static void sweep_ranges_are_exact(void **state)
{
    (void)state;
    run_result r;
    RUN(&r, "--sweep", "context=1000000000000..1000000000010+5", "--format", "csv");
    assert_int_equal(r.status, 0);
    assert_int_equal(count_lines(r.out), 1 + 3); /* 1e12, 1e12 + 5, 1e12 + 10 */
    assert_non_null(strstr(r.out, "\n1000000000010,"));
    assert_null(strstr(r.out, "\n1000000000011,"));
    run_free(&r);
    /* 1..100*1.5: 1,2,3,5,8,12,18,27,41,62,93 - 2 once */
    RUN(&r, "--sweep", "context=1..100*1.5", "--format", "csv");
    assert_int_equal(count_lines(r.out), 1 + 11);
    assert_non_null(strstr(r.out, "\n2,"));
    assert_null(strstr(strstr(r.out, "\n2,") + 1, "\n2,"));
    run_free(&r);
    /* 2^63 - 7, 2^63 - 4, 2^63 - 1: never negative */
    RUN(&r, "--sweep", "context=9223372036854775801..9223372036854775807+3", "--format", "csv");
    assert_int_equal(r.status, 0);
    assert_int_equal(count_lines(r.out), 1 + 3);
    assert_non_null(strstr(r.out, "\n9223372036854775807,"));
    assert_null(strstr(r.out, "\n-"));
    run_free(&r);
    /* a grid too large to finish is refused at once: 10^5 x 10^5 x 10 = 10^11 points */
    RUN(&r, "--sweep", "context=1..100000+1", "--sweep", "prefix-tokens=1..100000+1", "--sweep",
        "layers=1..10+1");
    expect_usage(&r, "kvcalc: --sweep: the grid has more than 100,000,000 points");
    run_free(&r);
    /* issue 19 item 21: a ratio just above 1 over a long span (1.25e8 rows) is refused too */
    RUN(&r, "--sweep", "context=1..1000000000000*1.0000001");
    expect_usage(&r, "kvcalc: --sweep: the grid has more than 100,000,000 points");
    run_free(&r);
}

/* A sweep whose output can no longer be written stops at once with exit 3. */
/* Every engine's sweep has its own columns, and none of them is empty on any row: a column
 * is a property of a field of the engine swept (an SGLang sweep once printed vLLM's three,
 * always empty). */
static void sweep_columns_follow_the_engine(void **state)
{
    (void)state;
    static const struct {
        const char *engine, *column;
    } cases[] = {{"vllm", "num_gpu_blocks"},
                 {"sglang", "sglang_max_total_num_tokens"},
                 {"trtllm", "trtllm_blocks"},
                 {"llama.cpp", "llamacpp_n_ctx"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run_result r;
        RUN(&r, "--engine", cases[i].engine, "--model", "qwen3-8b", "--sweep", "context=1k,8k",
            "--format", "csv");
        assert_int_equal(r.status, 0);
        const char *nl = strchr(r.out, '\n');
        assert_non_null(nl);
        char header[1024];
        snprintf(header, sizeof header, "%.*s", (int)(nl - r.out), r.out);
        if (!strstr(header, cases[i].column))
            fail_msg("--engine %s: no %s column in '%s'", cases[i].engine, cases[i].column, header);
        /* another engine's columns are not there */
        for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
            if (k != i && strstr(header, cases[k].column))
                fail_msg("--engine %s prints %s", cases[i].engine, cases[k].column);
        /* no empty cell: no ",," and no line that starts or ends a cell empty */
        if (strstr(r.out, ",,") || strstr(r.out, ",\n") || strstr(r.out, "\n,"))
            fail_msg("--engine %s: an empty column:\n%s", cases[i].engine, r.out);
        assert_int_equal(count_lines(r.out), 3);
        run_free(&r);
    }
}

/* The JSON text of top-level key `key` in a single run's output (a string without its
 * quotes: as a CSV cell spells it), or "" when there is no such key. */
static void json_top(const char *json, const char *key, char *out, size_t cap)
{
    char pat[96];
    snprintf(pat, sizeof pat, "\n  \"%s\": ", key);
    const char *at = strstr(json, pat);
    out[0] = '\0';
    if (!at)
        return;
    at += strlen(pat);
    size_t n = strcspn(at, "\n");
    if (n > 0 && at[n - 1] == ',')
        n--;
    if (n >= 2 && at[0] == '"' && at[n - 1] == '"') {
        at++;
        n -= 2;
    }
    snprintf(out, cap, "%.*s", (int)(n < cap - 1 ? n : cap - 1), at);
}

/* Every row of the CSV sweep `base` + `--sweep A=..., --sweep B=...` equals, cell by cell,
 * the single run of `base` with the row's two values typed as flags a and b (its JSON's
 * keys); returns the rows. */
static int rows_are_single_runs(const char *const *base, const char *flag_a, const char *a,
                                const char *flag_b, const char *b)
{
    const char *args[24];
    size_t nb = 0, n = 0;
    while (base[nb])
        nb++;
    for (size_t k = 0; k < nb; k++)
        args[n++] = base[k];
    char sweep_a[256], sweep_b[512];
    snprintf(sweep_a, sizeof sweep_a, "%s=%s", flag_a + 2, a);
    snprintf(sweep_b, sizeof sweep_b, "%s=%s", flag_b + 2, b);
    args[n++] = "--sweep";
    args[n++] = sweep_a;
    args[n++] = "--sweep";
    args[n++] = sweep_b;
    args[n++] = "--format";
    args[n++] = "csv";
    args[n] = NULL;
    run_result sw;
    run_kvcalc(args, &sw);
    if (sw.status != 0)
        fail_msg("--sweep %s --sweep %s: exit %d: %s", sweep_a, sweep_b, sw.status, sw.err);
    char names[32][64];
    size_t cols = 0;
    const char *p = sw.out;
    while (cols < 32 && *p != '\n') { /* the header */
        size_t len = strcspn(p, ",\n");
        snprintf(names[cols++], sizeof names[0], "%.*s", (int)len, p);
        p += len + (p[len] == ',');
    }
    int rows = 0;
    for (const char *line = strchr(sw.out, '\n') + 1; *line; line = strchr(line, '\n') + 1) {
        char va[128], vb[128];
        csv_field(line, 0, va, sizeof va);
        csv_field(line, 1, vb, sizeof vb);
        const char *one[24];
        size_t m = 0;
        for (size_t k = 0; k < nb; k++)
            one[m++] = base[k];
        one[m++] = flag_a;
        one[m++] = va;
        one[m++] = flag_b;
        one[m++] = vb;
        one[m++] = "--format";
        one[m++] = "json";
        one[m] = NULL;
        run_result single;
        run_kvcalc(one, &single);
        for (size_t c = 2; c < cols; c++) {
            char cell[128], want[128];
            csv_field(line, c, cell, sizeof cell);
            if (strcmp(names[c], "status") == 0)
                snprintf(want, sizeof want, "%s", single.status == 0 ? "ok" : "error");
            else
                json_top(single.out, names[c], want, sizeof want);
            if (strcmp(cell, want) != 0)
                fail_msg("--sweep %s --sweep %s, row %s %s %s %s: %s is '%s' in the sweep, '%s' "
                         "in the single run", sweep_a, sweep_b, flag_a, va, flag_b, vb, names[c],
                         cell, want);
        }
        run_free(&single);
        rows++;
    }
    run_free(&sw);
    return rows;
}

/* "A,A+1,B,B+1,...": for each value, the largest -c that fits (llamacpp_ctx_size_fit of
 * base with flag = value) and the next one, where llamacpp_fits_gpu turns false; values
 * whose fit is none or any add nothing. Returns how many values added one. */
static int fit_edges(const char *const *base, const char *flag, const char *const *values,
                     char *out, size_t cap)
{
    size_t n = 0;
    int edges = 0;
    out[0] = '\0';
    for (size_t v = 0; values[v]; v++) {
        const char *args[24];
        size_t m = 0;
        while (base[m]) {
            args[m] = base[m];
            m++;
        }
        args[m++] = flag;
        args[m++] = values[v];
        args[m] = NULL;
        double fit = run_get("llamacpp_ctx_size_fit", args);
        if (!(fit >= 1 && fit < 1e12))
            continue;
        n += (size_t)snprintf(out + n, cap - n, "%s%.0f,%.0f", n ? "," : "", fit, fit + 1);
        edges++;
    }
    return edges;
}

/* Values in a comma-separated list. */
static int listed(const char *list)
{
    int n = 1;
    for (; *list; list++)
        n += *list == ',';
    return n;
}

/* Issue 22: llama.cpp adds its layers up by kind, not layer by layer at every point, and
 * its fit search steps over whole padding steps; Ollama from 0.30 runs those rules on its
 * own spec. Nothing of a point may outlive it: sweeps whose model, layer count or GPU layers
 * change between rows (that axis first, so -c moves alone within it and the builder runs at
 * each carry) equal the single runs cell by cell. -c runs through each model's (each layer
 * count's, each -ngl's) largest -c that fits and the one after it, where llamacpp_fits_gpu
 * and the answer flip: figures left from the model before would move the flip. */
static void sweeps_across_models_are_single_runs(void **state)
{
    (void)state;
    char edges[1024];
    /* models of one layer count among others (Qwen3-8B, SmolLM3-3B and gpt-oss-120b have 36:
     * 8 KV heads, 4, and half of them sliding), some twice */
    static const char *const models[] = {"qwen3-8b", "smollm3-3b", "gemma-3-27b-it",
                                         "qwen3.5-9b", "gpt-oss-20b", NULL};
    const char *const models_again = "qwen3-8b,smollm3-3b,gemma-3-27b-it,qwen3.5-9b,gpt-oss-20b,"
                                     "qwen3-8b";
    const char *const llama_l4[] = {"--engine", "llama.cpp", "--gpu", "l4", NULL};
    assert_int_equal(fit_edges(llama_l4, "--model", models, edges, sizeof edges), 4);
    assert_int_equal(rows_are_single_runs(llama_l4, "--model", models_again, "--ctx-size", edges),
                     6 * listed(edges));
    static const char *const models_36[] = {"qwen3-8b", "gpt-oss-120b", "smollm3-3b", NULL};
    const char *const llama_h100[] = {"--engine", "llama.cpp", "--gpu", "h100", NULL};
    assert_int_equal(fit_edges(llama_h100, "--model", models_36, edges, sizeof edges), 3);
    assert_int_equal(rows_are_single_runs(llama_h100, "--model",
                                          "qwen3-8b,gpt-oss-120b,smollm3-3b,qwen3-8b", "--ctx-size",
                                          edges),
                     4 * listed(edges));
    /* the layer count of one model */
    static const char *const layers[] = {"12", "24", "36", NULL};
    const char *const qwen_l4[] = {"--engine", "llama.cpp", "--model", "qwen3-8b", "--gpu", "l4",
                                   NULL};
    assert_int_equal(fit_edges(qwen_l4, "--layers", layers, edges, sizeof edges), 3);
    assert_int_equal(rows_are_single_runs(qwen_l4, "--layers", "12,24,36", "--ctx-size", edges),
                     3 * listed(edges));
    /* the layers on the GPU, of a hybrid model (state layers) and a sliding-window one */
    static const char *const ngl_hybrid[] = {"4", "8", "16", "20", NULL};
    const char *const hybrid[] = {"--engine", "llama.cpp", "--model", "qwen3.5-9b", "--gpu", "t4",
                                  NULL};
    assert_int_equal(fit_edges(hybrid, "--n-gpu-layers", ngl_hybrid, edges, sizeof edges), 4);
    assert_int_equal(rows_are_single_runs(hybrid, "--n-gpu-layers", "4,8,16,20", "--ctx-size",
                                          edges),
                     4 * listed(edges));
    static const char *const ngl_sliding[] = {"5", "15", "20", NULL};
    const char *const sliding[] = {"--engine", "llama.cpp", "--model", "gemma-3-27b-it", "--gpu",
                                   "rtx4090", NULL};
    assert_int_equal(fit_edges(sliding, "--n-gpu-layers", ngl_sliding, edges, sizeof edges), 3);
    assert_int_equal(rows_are_single_runs(sliding, "--n-gpu-layers", "5,15,20", "--ctx-size",
                                          edges),
                     3 * listed(edges));
    /* Ollama (llama-server's era, and the estimator's): its models and num_gpu */
    const char *const ollama_l4[] = {"--engine", "ollama", "--gpu", "l4", NULL};
    assert_int_equal(rows_are_single_runs(ollama_l4, "--model", models_again, "--num-ctx",
                                          "4096,40000,131072"),
                     18);
    const char *const ollama_old[] = {"--engine", "ollama", "--gpu", "l4", "--ollama-version",
                                      "0.12.11", NULL};
    assert_int_equal(rows_are_single_runs(ollama_old, "--model", models_again, "--num-ctx",
                                          "4096,131072"),
                     12);
    const char *const ollama_gemma[] = {"--engine", "ollama", "--model", "gemma-3-27b-it", "--gpu",
                                        "rtx4090", NULL};
    assert_int_equal(rows_are_single_runs(ollama_gemma, "--num-gpu", "0,20,63", "--num-ctx",
                                          "4096,32768"),
                     6);
}

static void sweep_stops_when_output_fails(void **state)
{
    (void)state;
    run_result r;
    /* 10^8 points would take a minute: a prompt exit 3 is the fix */
    run_kvcalc_to((const char *const[]){"--sweep", "context=1..100000000+1", "--format", "csv",
                                        NULL},
                  "/dev/full", &r);
    assert_int_equal(r.status, 3);
    assert_string_equal(r.err, "kvcalc: error writing to standard output\n");
    run_free(&r);
}

/* User text reaches the terminal on one line, control bytes replaced. */
static void hostile_text_is_made_safe(void **state)
{
    (void)state;
    run_result r;
    RUN(&r, "--config", "/nonexistent/x\n\x1b[31m");
    expect_usage(&r, "kvcalc: /nonexistent/x??[31m: cannot open: ");
    run_free(&r);
    /* a config whose name has JSON escapes: decoded, then shown with '?' for controls */
    char path[] = "/tmp/kvcalc-test-XXXXXX";
    write_temp(path, "{\"_name_or_path\": \"evil\\n\\u001b[31m, \\\"quoted\\\"\", "
                     "\"num_hidden_layers\": 2, \"num_attention_heads\": 4, "
                     "\"num_key_value_heads\": 2, \"hidden_size\": 256, "
                     "\"intermediate_size\": 512, \"vocab_size\": 1000}");
    RUN(&r, "--config", path);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "KV cache calculator  (evil??[31m, \"quoted\"; from "));
    assert_null(strchr(r.out, '\x1b'));
    run_free(&r);
    RUN(&r, "--config", path, "--format", "json");
    assert_non_null(strstr(r.out, "\"model\": \"evil\\n\\u001b[31m, \\\"quoted\\\"\","));
    run_free(&r);
    RUN(&r, "--config", path, "--sweep", "context=1,2", "--format", "csv", "--sweep",
        "tp=1");
    assert_int_equal(r.status, 0);
    run_free(&r);
    remove(path);
}

/* Messages list what they promise, whole; numbers are read whole; -0 is 0. */
static void messages_and_numbers(void **state)
{
    (void)state;
    run_result r;
    RUN(&r, "--get", "bogus");
    expect_usage(&r, "kvcalc: --get: unknown key 'bogus' (expected one of: schema_version ");
    assert_non_null(strstr(r.err, " gpus_needed smallest_gpu gpus best_tensor_parallel_size "));
    assert_non_null(strstr(r.err, " best_deployment_max_concurrency workload_scheduler "));
    assert_non_null(strstr(r.err, " metrics_binding log_era "));
    assert_non_null(strstr(r.err, " available_kv_bytes")); /* once: the --from-log keys follow */
    assert_non_null(strstr(r.err, " logged_gpu_mem_bytes kv_budget_error_pct)\n"));
    run_free(&r);
    RUN(&r, "--require", "bogus>=1");
    expect_usage(&r, "kvcalc: --require: unknown numeric key 'bogus' (expected one of: ");
    assert_non_null(strstr(r.err, " fits_one_gpu replicas gpus_needed gpus "));
    assert_non_null(strstr(r.err, " best_deployment_max_concurrency workload_prompt_tokens_mean "));
    assert_non_null(strstr(r.err, " metrics_onset_rate startups "));
    assert_non_null(strstr(r.err, " kv_budget_error_pct)\n"));
    run_free(&r);
    EXPECT_STDOUT("0\n", "--params-b", "-0", "--get", "params");
    RUN(&r, "--params-b", "-0", "--format", "json");
    assert_non_null(strstr(r.out, "\"params_b\": 0,"));
    run_free(&r);
    RUN(&r, "--params-b", "-0");
    assert_non_null(strstr(r.out, "Weights    : ~0B params @ fp16  ->  0.00 GiB\n"));
    run_free(&r);
    /* one KV dtype, several spellings; the error names the flag typed */
    EXPECT_STDOUT("1\n", "--engine", "vllm", "--kv-cache-dtype", "fp8_e4m3", "--get",
                  "kv_dtype_bytes");
    EXPECT_STDOUT("1\n", "--engine", "vllm", "--kv-cache-dtype", "fp8_e5m2", "--get",
                  "vllm_kv_elem_bytes");
    EXPECT_STDOUT("2\n", "--dtype", "bfloat16", "--get", "kv_dtype_bytes");
    EXPECT_STDOUT("1\n", "--model", "qwen3-8b", "--kv-cache-dtype", "auto", "--dtype", "fp8",
                  "--get", "kv_dtype_bytes");
    RUN(&r, "--kv-cache-dtype", "fp9");
    expect_usage(&r, "kvcalc: --kv-cache-dtype: unknown dtype 'fp9'; did you mean 'fp8'? "
                     "(expected one of: fp32 ");
    run_free(&r);
    /* CSV null is an empty cell: the ideal row of an engine sweep has no vLLM blocks */
    RUN(&r, "--sweep", "engine=ideal,vllm", "--format", "csv");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\nideal,57344,234881024,35392123904,150,true,150,,,,ok\n"));
    assert_null(strstr(r.out, "null"));
    run_free(&r);
}

/* Found by fuzzing: replicas x TP overflowed int64. With TP 2, 2 KV heads a GPU: 28,672 B
 * a token, 28,672,000,000 B for 1,000,000 tokens; 48 GiB - 3.5e9 B - 2 GiB = 42,392,123,904
 * B free holds 1 request a replica, so 2^63 - 1 requests need 2^63 - 1 replicas: 2^64 - 2
 * GPUs do not fit in 64 bits, and kvcalc refuses rather than cap the count. */
static void plans_are_exact_or_refused(void **state)
{
    (void)state;
    run_result r;
    RUN(&r, "--tp", "2", "--context", "1000000", "--target-concurrency", "9223372036854775807");
    expect_usage(&r, "kvcalc: --target-concurrency: the plan needs more than 2^63 - 1 GPUs; "
                     "kvcalc refuses rather than cap the count\n");
    run_free(&r);
    /* TP 1 on 80 GiB: 85,899,345,920 - 14e9 - 2 GiB = 69,751,862,272 B free holds one
     * request of 57,344,000,000 B: 2^63 - 1 replicas of one GPU, exact */
    EXPECT_STDOUT("9223372036854775807\n", "--context", "1000000", "--gpu-mem-gib", "80",
                  "--target-concurrency", "9223372036854775807", "--get", "gpus_needed");
}

/* One source for per-GPU figures; what the text says about context is true. */
static void per_gpu_figures_and_true_words(void **state)
{
    (void)state;
    run_result r;
    /* 8 KV heads over TP 2: 4 per GPU, 2 x 28 x 4 x 128 x 2 B = 57,344 B a token per GPU */
    RUN(&r, "--kv-heads", "8", "--tp", "2", "--format", "json");
    assert_non_null(strstr(r.out, "\"kv_heads\": 4, \"head_dim\": 128, \"window\": null, "
                                  "\"bytes_per_token\": 57344,"));
    run_free(&r);
    RUN(&r, "--kv-heads", "8", "--tp", "2");
    assert_non_null(strstr(r.out, "2 x 28 x 4 x 128 x 2 B  =  57,344 B"));
    run_free(&r);
    /* the lesson's line only where it holds */
    RUN(&r, "--context", "4096");
    assert_non_null(strstr(r.out, "Double the context, halve the concurrency."));
    run_free(&r);
    RUN(&r, "--model", "gemma-3-27b-it", "--gpu", "h100");
    assert_null(strstr(r.out, "Double the context, halve the concurrency."));
    assert_non_null(strstr(r.out, "Only the full-attention layers keep every token"));
    run_free(&r);
    /* Mistral-7B-Instruct-v0.1 (sliding window 4096): at 16k a layer no longer holds the
     * shared prefix, so prefix caching saves nothing; at 2k it saves 49 x 1,024 tokens x
     * 2 x 32 x 8 x 128 x 2 B = 49 x 1024 x 131072 = 6,576,668,672 B */
    EXPECT_STDOUT("0\n", "--model", "mistral-7b-instruct-v0.1", "--context", "16384", "--get",
                  "prefix_saved_bytes");
    RUN(&r, "--model", "mistral-7b-instruct-v0.1", "--context", "16384");
    assert_non_null(strstr(r.out, "save 0.00 GiB"));
    assert_null(strstr(r.out, "nearly free to reuse"));
    assert_non_null(strstr(r.out, "no longer\n  hold all of the shared prefix"));
    run_free(&r);
    /* the error names the flag as typed */
    RUN(&r, "--tp", "3");
    expect_usage(&r, "kvcalc: --tp: 3 does not split 4 KV heads (valid: 1 2 4, or a multiple "
                     "of 4)\n");
    run_free(&r);
    RUN(&r, "--max-model-len", "0");
    expect_usage(&r, "kvcalc: --max-model-len: expected an integer >= 1 (or 32k = 32,000, "
                     "32K = 32,768, 1m, 1M), got '0'\n");
    run_free(&r);
    EXPECT_STDOUT("6576668672\n", "--model", "mistral-7b-instruct-v0.1", "--context", "2048",
                  "--get", "prefix_saved_bytes");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_engine_drives_the_answer),
        cmocka_unit_test(sweep_rows_equal_single_runs),
        cmocka_unit_test(sweep_one_input_path),
        cmocka_unit_test(sweep_axes_take_effect),
        cmocka_unit_test(sweep_ranges_are_exact),
        cmocka_unit_test(sweep_stops_when_output_fails),
        cmocka_unit_test(hostile_text_is_made_safe),
        cmocka_unit_test(messages_and_numbers),
        cmocka_unit_test(sweep_columns_follow_the_engine),
        cmocka_unit_test(sweeps_across_models_are_single_runs),
        cmocka_unit_test(per_gpu_figures_and_true_words),
        cmocka_unit_test(plans_are_exact_or_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
