/*
 * test_binary.c - the real kvcalc binary, end to end: bad input (exit 2, one line on stderr,
 * nothing on stdout), help and version, --get, and JSON/CSV output parsed and checked
 * against the numbers of the text table for the golden cases.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keys.h"
#include "options.h"
#include "kvcalc_json.h"
#include "run.h"

#define RUN(r, ...) run_kvcalc((const char *const[]){__VA_ARGS__, NULL}, r)

/* ---- usage errors -------------------------------------------------------------------- */

static void check_usage_error(const char *const *args)
{
    run_result r;
    run_kvcalc(args, &r);
    assert_int_equal(r.status, 2);
    assert_int_equal(r.out_len, 0);
    assert_int_equal(count_lines(r.err), 2);
    assert_memory_equal(r.err, "kvcalc: ", 8);
    const char *second = strchr(r.err, '\n') + 1;
    assert_string_equal(second, KV_HINT "\n");
    run_free(&r);
}

static void bad_input_exits_2(void **state)
{
    (void)state;
    static const char *const cases[][5] = {
        {"--context", "4q"},
        {"--context", ""},
        {"--context", "0"},
        {"--context", "-1"},
        {"--layers", "99999999999999999999"},
        {"--kv-heads", "2.5"},
        {"--head-dim", "1e2"},
        {"--prefix-tokens", "-3"},
        {"--prefix-requests", "0"},
        {"--gpu-mem-gib", "0"},
        {"--gpu-mem-gib", "nan"},
        {"--gpu-mem-gib", "inf"},
        {"--gpu-mem-gib", "-inf"},
        {"--overhead-gib", "-2"},
        {"--params-b", "1e400"},
        {"--params-b", "seven"},
        {"--params-b", "1e300"},    /* finite, but its weights in bytes are not */
        {"--gpu-mem-gib", "1e300"}, /* finite, but not in bytes */
        {"--dtype", "fp64"},
        {"--weight-dtype", "int2"},
        {"--format", "yaml"},
        {"--get", "everything"},
        {"--frobnicate"},
        {"-v"},
        {"positional"},
        {"--context"},
        {"--dtype", "--context", "5"},
        {"--version=2"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_usage_error(cases[i]);
}

static void core_errors_name_the_flag(void **state)
{
    (void)state;
    run_result r;
    RUN(&r, "--params-b", "1e300");
    assert_non_null(strstr(r.err, "kvcalc: --params-b: "));
    run_free(&r);
    RUN(&r, "--overhead-gib", "1e300");
    assert_non_null(strstr(r.err, "kvcalc: --overhead-gib: "));
    run_free(&r);
}

/* ---- help, version, write errors ----------------------------------------------------- */

/* A long name is one flag, or one row per engine that spells it alike (vLLM's and SGLang's
 * --enable-lora): those rows have one type and bounds (a value read before the engine is
 * known fits the engine's row) and no short name; never two rows of one engine, never a
 * name of every engine beside an engine's. */
static void shared_names_are_twins(void **state)
{
    (void)state;
    size_t shared = 0;
    for (size_t i = 0; i < kv_flag_count(); i++) {
        const kv_flag *a = kv_flag_at(i);
        for (size_t j = i + 1; j < kv_flag_count(); j++) {
            const kv_flag *b = kv_flag_at(j);
            if (strcmp(a->name, b->name) != 0)
                continue;
            shared++;
            assert_true(a->engine != KV_ENGINE_COUNT && b->engine != KV_ENGINE_COUNT);
            assert_true(a->engine != b->engine);
            assert_int_equal(a->arg, b->arg);
            assert_int_equal(a->does, b->does);
            assert_true(a->min == b->min && a->max == b->max);
            assert_int_equal(a->min_exclusive, b->min_exclusive);
            assert_int_equal(a->tokens, b->tokens);
            assert_null(a->short_name);
            assert_null(b->short_name);
            assert_ptr_equal(kv_flag_twin(a, b->engine), b);
            assert_ptr_equal(kv_flag_find_for(a->name, strlen(a->name), b->engine), b);
            /* the name alone finds its first row (three engines may share one) */
            const kv_flag *first = a;
            for (size_t k = 0; k < i; k++)
                if (strcmp(kv_flag_at(k)->name, a->name) == 0) {
                    first = kv_flag_at(k);
                    break;
                }
            assert_ptr_equal(kv_flag_find(a->name, strlen(a->name)), first);
        }
    }
    assert_true(shared >= 2); /* --enable-lora and --max-lora-rank */
}

static void help_lists_every_flag(void **state)
{
    (void)state;
    run_result r;
    RUN(&r, "--help");
    assert_int_equal(r.status, 0);
    assert_int_equal(r.err_len, 0);
    assert_memory_equal(r.out, "Usage: kvcalc", 13);
    char want[64];
    for (size_t i = 0; i < kv_flag_count(); i++) {
        /* "  --flag" then its placeholder, its help, or a line break */
        snprintf(want, sizeof want, "%s--%s", kv_flag_at(i)->short_name ? ", " : "  ",
                 kv_flag_at(i)->name);
        const char *at = r.out;
        while ((at = strstr(at, want)) != NULL && at[strlen(want)] != ' ' &&
               at[strlen(want)] != '\n')
            at++; /* "--gpu" before "--gpu-mem-gib": look on */
        assert_non_null(at);
    }
    /* defaults are shown from the core's own defaults */
    assert_non_null(strstr(r.out, "[4096]"));
    assert_non_null(strstr(r.out, "[fp16]"));
    assert_non_null(strstr(r.out, "int4\n  (0.5 B)"));
    assert_non_null(strstr(r.out, "--format FMT"));
    assert_non_null(strstr(r.out, "-h, --help"));
    /* 80 columns, every line */
    for (const char *line = r.out; *line;) {
        size_t len = strcspn(line, "\n");
        if (len > 80)
            fail_msg("--help line of %zu columns: %.*s", len, (int)len, line);
        line += len + (line[len] != '\0');
    }
    /* the examples come first, then the sections */
    assert_true(strstr(r.out, "Examples:") < strstr(r.out, "Model (default"));
    run_free(&r);
    /* --help=SECTION: usage, examples and that section only */
    RUN(&r, "--help=llama.cpp");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "Examples:"));
    assert_non_null(strstr(r.out, "-np, --parallel N"));
    assert_null(strstr(r.out, "--gpu-memory-utilization"));
    assert_null(strstr(r.out, "--layers"));
    run_free(&r);
    RUN(&r, "--help=gpu");
    assert_non_null(strstr(r.out, "--gpu-mem-gib GIB"));
    assert_null(strstr(r.out, "--prefix-tokens"));
    run_free(&r);
    RUN(&r, "--help=engine");
    assert_int_equal(r.status, 2);
    assert_int_equal(r.out_len, 0);
    assert_memory_equal(r.err, "kvcalc: --help: unknown section 'engine'; did you mean "
                               "'engines'?", 62);
    run_free(&r);
    RUN(&r, "-h");
    assert_int_equal(r.status, 0);
    assert_memory_equal(r.out, "Usage: kvcalc", 13);
    run_free(&r);
}

static void version(void **state)
{
    (void)state;
    run_result r;
    RUN(&r, "--version");
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "kvcalc " KVCALC_VERSION "\n");
    run_free(&r);
}

static void write_error_is_not_success(void **state)
{
    (void)state;
    FILE *probe = fopen("/dev/full", "w");
    if (!probe)
        skip();
    fclose(probe);
    run_result r;
    run_kvcalc_to((const char *const[]){"--format", "json", NULL}, "/dev/full", &r);
    assert_int_equal(r.status, 3);
    assert_string_equal(r.err, "kvcalc: error writing to standard output\n");
    run_free(&r);
}

/* ---- --get ----------------------------------------------------------------------------- */

static void get_prints_one_value(void **state)
{
    (void)state;
    /* the lesson: ~75 at 8k on 48 GiB */
    EXPECT_STDOUT("75\n", "--context", "8192", "--get", "max_concurrency");
    EXPECT_STDOUT("57344\n", "--get", "kv_bytes_per_token"); /* 2 x 28 x 4 x 128 x 2 */
    EXPECT_STDOUT("false\n", "--params-b", "70", "--gpu-mem-gib", "80", "--get", "fits");
    /* 80 x 2^30 - 70e9 x 2 - 2 x 2^30 */
    EXPECT_STDOUT("-56248137728\n",
                  "--params-b", "70", "--gpu-mem-gib", "80", "--get", "free_kv_bytes");
    EXPECT_STDOUT("2\n", "--get=schema_version");
}

/* ---- JSON and CSV against the text ---------------------------------------------------- */

/* The number after `marker` in text, with thousands separators removed. */
static double number_after(const char *text, const char *marker)
{
    const char *p = strstr(text, marker);
    assert_non_null(p);
    p += strlen(marker);
    char digits[128];
    size_t n = 0;
    for (; *p && (strchr("0123456789.-", *p) || *p == ',') && n + 1 < sizeof digits; p++)
        if (*p != ',')
            digits[n++] = *p;
    digits[n] = '\0';
    return strtod(digits, NULL);
}

/* Reads "  1,024      56.0 MiB             602  <- your setting": context, MiB, concurrency
 * (thousands separators removed). */
static int parse_table_line(const char *line, double *ctx, double *mib, double *conc)
{
    char clean[256];
    size_t n = 0;
    for (; *line && *line != '\n' && n + 1 < sizeof clean; line++)
        if (*line != ',')
            clean[n++] = *line;
    clean[n] = '\0';
    return sscanf(clean, "%lf %lf MiB %lf", ctx, mib, conc) == 3;
}

typedef struct {
    const char *name;
    const char *args[20];
} golden_case;

/* The public golden cases (tests/golden/cases.tsv), as argument lists. */
static const golden_case cases[] = {
    {"default", {NULL}},
    {"context-8192", {"--context", "8192", NULL}},
    {"weight-int8", {"--weight-dtype", "int8", NULL}},
    {"no-gqa", {"--kv-heads", "28", NULL}},
    {"gpu-24", {"--gpu-mem-gib", "24", NULL}},
    {"prefix-200x2048", {"--prefix-requests", "200", "--prefix-tokens", "2048", NULL}},
    {"no-room", {"--params-b", "70", "--gpu-mem-gib", "80", NULL}},
    {"llama3-70b-int4",
     {"--layers", "80", "--kv-heads", "8", "--head-dim", "128", "--params-b", "70.6",
      "--weight-dtype", "int4", "--gpu-mem-gib", "80", "--context", "8192", NULL}},
    {"odd-context", {"--context", "3000", NULL}},
};

static void run_with(const golden_case *c, const char *extra1, const char *extra2,
                     run_result *r)
{
    const char *args[24];
    size_t n = 0;
    for (; c->args[n]; n++)
        args[n] = c->args[n];
    args[n++] = extra1;
    args[n++] = extra2;
    args[n] = NULL;
    run_kvcalc(args, r);
    assert_int_equal(r->status, 0);
}

static double num_at(const char *text, const kv_json_tok *toks, size_t obj, const char *key)
{
    size_t v = kv_json_find(text, toks, obj, key);
    assert_int_not_equal(v, 0);
    assert_int_equal(toks[v].type, KV_JSON_NUMBER);
    return kv_json_number(text, &toks[v]);
}

static void json_matches_text(void **state)
{
    (void)state;
    static kv_json_tok toks[2048];
    kv_json_error jerr;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run_result text, json;
        run_with(&cases[i], "--format", "text", &text);
        run_with(&cases[i], "--format", "json", &json);
        long n = kv_json_parse(json.out, json.out_len, toks, 2048, 16, &jerr);
        assert_true(n > 0);
        assert_int_equal(toks[0].type, KV_JSON_OBJECT);
        /* every documented key is there */
        for (size_t k = 0; k < kv_field_count(); k++)
            assert_int_not_equal(kv_json_find(json.out, toks, 0, kv_field_at(k)->name), 0);
        assert_true(num_at(json.out, toks, 0, "schema_version") == KV_SCHEMA_VERSION);
        size_t inputs = kv_json_find(json.out, toks, 0, "inputs");
        assert_int_equal(toks[inputs].type, KV_JSON_OBJECT);
        size_t model_inputs = 0; /* vLLM's inputs appear only with --engine vllm */
        for (size_t k = 0; k < kv_flag_count(); k++)
            model_inputs += kv_flag_at(k)->does == DO_SPEC && kv_flag_at(k)->engine == KV_ENGINE_COUNT;
        assert_int_equal(toks[inputs].size, model_inputs);

        size_t fits = kv_json_find(json.out, toks, 0, "fits");
        int no_room = strstr(text.out, "no room for KV cache") != NULL;
        assert_int_equal(toks[fits].type, no_room ? KV_JSON_FALSE : KV_JSON_TRUE);
        /* the weights line: same GiB to 2 decimals */
        char gib[64];
        snprintf(gib, sizeof gib, "->  %.2f GiB",
                 num_at(json.out, toks, 0, "weights_bytes") / 1073741824.0);
        assert_non_null(strstr(text.out, gib));
        if (no_room) {
            assert_true(num_at(json.out, toks, 0, "free_kv_bytes") <= 0);
            assert_true(num_at(json.out, toks, 0, "max_concurrency") == 0);
        } else {
            assert_true(num_at(json.out, toks, 0, "max_concurrency") ==
                        number_after(text.out, "context:  ~"));
            assert_true(num_at(json.out, toks, 0, "kv_bytes_per_token") ==
                        number_after(text.out, "  =  "));
            assert_true(num_at(json.out, toks, 0, "prefix_extra_concurrency") ==
                        number_after(text.out, "GiB  (~"));
            snprintf(gib, sizeof gib, "Free for KV: %.2f GiB",
                     num_at(json.out, toks, 0, "free_kv_bytes") / 1073741824.0);
            assert_non_null(strstr(text.out, gib));
            /* the table: one text line per JSON row, same context, MiB and concurrency */
            size_t rows = kv_json_find(json.out, toks, 0, "rows");
            assert_int_equal(toks[rows].type, KV_JSON_ARRAY);
            const char *line = strstr(text.out, "max concurrent\n");
            assert_non_null(line);
            line = strchr(line, '\n') + 1;
            size_t row = rows + 1;
            for (size_t k = 0; k < toks[rows].size; k++, row = toks[row].next) {
                double ctx = 0, mib = 0, conc = 0;
                assert_true(parse_table_line(line, &ctx, &mib, &conc));
                assert_true(ctx == num_at(json.out, toks, row, "context"));
                double want_mib = num_at(json.out, toks, row, "kv_bytes_per_request") / 1048576.0;
                assert_true(fabs(mib - want_mib) <= 0.05 + want_mib * 1e-15);
                assert_true(conc == num_at(json.out, toks, row, "max_concurrency"));
                size_t set = kv_json_find(json.out, toks, row, "is_setting");
                int marked = strstr(line, "<- your setting") != NULL &&
                             strstr(line, "<- your setting") < strchr(line, '\n');
                assert_int_equal(marked, toks[set].type == KV_JSON_TRUE);
                line = strchr(line, '\n') + 1;
            }
            assert_memory_equal(line, "  Double the context", 20); /* no extra text rows */
        }
        run_free(&text);
        run_free(&json);
    }
}

static void csv_matches_json(void **state)
{
    (void)state;
    static kv_json_tok toks[2048];
    kv_json_error jerr;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run_result csv, json;
        run_with(&cases[i], "--format", "csv", &csv);
        run_with(&cases[i], "--format", "json", &json);
        assert_true(kv_json_parse(json.out, json.out_len, toks, 2048, 16, &jerr) > 0);
        size_t rows = kv_json_find(json.out, toks, 0, "rows");
        const char *line = csv.out;
        assert_memory_equal(line, "context,kv_bytes_per_request,max_concurrency,is_setting\n",
                            56);
        line = strchr(line, '\n') + 1;
        assert_int_equal(count_lines(csv.out), 1 + toks[rows].size);
        size_t row = rows + 1;
        for (size_t k = 0; k < toks[rows].size; k++, row = toks[row].next) {
            char *end;
            double c = strtod(line, &end);
            assert_int_equal(*end, ',');
            double bytes = strtod(end + 1, &end);
            assert_int_equal(*end, ',');
            double conc = strtod(end + 1, &end);
            assert_int_equal(*end, ',');
            assert_true(c == num_at(json.out, toks, row, "context"));
            assert_true(bytes == num_at(json.out, toks, row, "kv_bytes_per_request"));
            assert_true(conc == num_at(json.out, toks, row, "max_concurrency"));
            size_t set = kv_json_find(json.out, toks, row, "is_setting");
            const char *want = toks[set].type == KV_JSON_TRUE ? ",true\n" : ",false\n";
            assert_memory_equal(end, want, strlen(want));
            line = strchr(line, '\n') + 1;
        }
        run_free(&csv);
        run_free(&json);
    }
}

/* docs/output.md documents every key the JSON can hold. */
static void output_keys_are_documented(void **state)
{
    (void)state;
    char *doc = read_file(KVCALC_SOURCE_DIR "/docs/output.md", NULL);
    assert_non_null(doc);
    char want[80];
    for (size_t i = 0; i < kv_field_count(); i++) {
        snprintf(want, sizeof want, "`%s`", kv_field_at(i)->name);
        assert_non_null(strstr(doc, want));
    }
    for (size_t i = 0; i < kv_log_field_count(); i++) { /* --from-log's */
        snprintf(want, sizeof want, "`%s`", kv_log_field_at(i)->name);
        assert_non_null(strstr(doc, want));
    }
    for (size_t i = 0; i < kv_param_count(); i++) {
        snprintf(want, sizeof want, "`%s`", kv_param_at(i)->key);
        assert_non_null(strstr(doc, want));
    }
    static const char *const nested[] = {"`rows`", "`is_setting`", "`layout`", "`mla`",
                                         "`mla_latent`", "`state_size_known`", "`parallel_state`", "`groups`",
                                         "`kind`", "`count`", "`window`", "`bytes_per_token`",
                                         "`bytes_fixed`", "`bytes_per_request`",
                                         "`plan_options`", "`levers`", "`per_replica`",
                                         "`half_context`", "`offload`", "`lines`",
                                         "`quantity`", "`logged`", "`kvcalc`",
                                         "`difference`", "`term`"};
    for (size_t i = 0; i < sizeof nested / sizeof nested[0]; i++)
        assert_non_null(strstr(doc, nested[i]));
    free(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bad_input_exits_2),
        cmocka_unit_test(core_errors_name_the_flag),
        cmocka_unit_test(help_lists_every_flag),
        cmocka_unit_test(shared_names_are_twins),
        cmocka_unit_test(version),
        cmocka_unit_test(write_error_is_not_success),
        cmocka_unit_test(get_prints_one_value),
        cmocka_unit_test(json_matches_text),
        cmocka_unit_test(csv_matches_json),
        cmocka_unit_test(output_keys_are_documented),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
