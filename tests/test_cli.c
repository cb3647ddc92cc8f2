/*
 * test_cli.c - the argument parser: every accepted form and every error path, with the
 * exact message a user sees.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#define KVCALC_ENGINES
#include "build.h"
#include "keys.h"
#include "pipeline.h"

static kv_options opts;
static kv_spec spec;
static char err[KV_ERR_BUF];

/* Options, then the spec the builder makes of them (no model) - what a run computes. */
static int parse_and_build(int argc, char **argv)
{
    int rc = kv_options_parse(argc, argv, &opts, err, sizeof err);
    if (rc == 0 && opts.action == ACTION_RUN)
        rc = kv_build_spec(&opts, NULL, opts.gpu, &spec, err, sizeof err);
    return rc;
}

/* Parses a NULL-terminated list of arguments (argv[0] is supplied). */
static int parse_list(const char *const *args)
{
    char *argv[64];
    int argc = 0;
    argv[argc++] = (char *)"kvcalc";
    for (; *args; args++)
        argv[argc++] = (char *)*args;
    argv[argc] = NULL;
    return parse_and_build(argc, argv);
}
/* the other spellings every dtype error lists after the names */
#define DTYPE_SPELLINGS "auto float32 float float16 half bfloat16 fp8_e4m3 fp8_e5m2 fp8_e4m3fn " \
                        "float8_e4m3fn float8_e5m2 fp8_inc"
/* what every token-count error adds to "an integer >= N" */
#define TOK " (or 32k = 32,000, 32K = 32,768, 1m, 1M)"
#define PARSE(...) parse_list((const char *const[]){__VA_ARGS__, NULL})

static void expect_error(const char *const *args, const char *message)
{
    assert_int_equal(parse_list(args), KV_USAGE_ERROR);
    assert_string_equal(err, message);
    assert_null(strchr(err, '\n'));
}
#define EXPECT_ERROR(msg, ...) expect_error((const char *const[]){__VA_ARGS__, NULL}, msg)

static void defaults_without_arguments(void **state)
{
    (void)state;
    char *argv[] = {(char *)"kvcalc", NULL};
    assert_int_equal(parse_and_build(1, argv), 0);
    assert_int_equal(opts.action, ACTION_RUN);
    assert_int_equal(opts.format, FORMAT_TEXT);
    assert_null(opts.get);
    assert_int_equal(spec.layers, 28);
    assert_int_equal(spec.kv_heads, 4);
    assert_int_equal(spec.head_dim, 128);
    assert_int_equal(spec.dtype, KV_DTYPE_FP16);
    assert_true(spec.params_b == 7.0);
    assert_int_equal(spec.weight_dtype, KV_DTYPE_FP16);
    assert_true(spec.gpu_mem_gib == 48.0);
    assert_true(spec.overhead_gib == 2.0);
    assert_int_equal(spec.context, 4096);
    assert_int_equal(spec.prefix_tokens, 1024);
    assert_int_equal(spec.prefix_requests, 50);
}

static void both_value_forms_and_last_wins(void **state)
{
    (void)state;
    assert_int_equal(PARSE("--context", "8192"), 0);
    assert_int_equal(spec.context, 8192);
    assert_int_equal(PARSE("--context=8192"), 0);
    assert_int_equal(spec.context, 8192);
    assert_int_equal(PARSE("--context", "1", "--context=2", "--context", "3"), 0);
    assert_int_equal(spec.context, 3);
    assert_int_equal(PARSE("--dtype=fp8", "--weight-dtype", "int4", "--params-b=70.6"), 0);
    assert_int_equal(spec.dtype, KV_DTYPE_FP8);
    assert_int_equal(spec.weight_dtype, KV_DTYPE_INT4);
    assert_true(spec.params_b == 70.6);
    assert_int_equal(PARSE("--gpu-mem-gib", "7.9e1", "--overhead-gib", ".5"), 0);
    assert_true(spec.gpu_mem_gib == 79.0);
    assert_true(spec.overhead_gib == 0.5);
    assert_int_equal(PARSE("--layers", "+12", "--prefix-tokens", "0", "--overhead-gib", "0"), 0);
    assert_int_equal(spec.layers, 12);
    assert_int_equal(spec.prefix_tokens, 0);
    /* the largest 64-bit integer is accepted */
    assert_int_equal(PARSE("--layers", "9223372036854775807"), 0);
    assert_int_equal(spec.layers, INT64_MAX);
    /* underflow to zero is a valid (tiny) number, as in Python */
    assert_int_equal(PARSE("--params-b", "1e-400"), 0);
    assert_true(spec.params_b == 0.0);
}

static void output_options(void **state)
{
    (void)state;
    assert_int_equal(PARSE("--format", "json"), 0);
    assert_int_equal(opts.format, FORMAT_JSON);
    assert_int_equal(PARSE("--format=csv"), 0);
    assert_int_equal(opts.format, FORMAT_CSV);
    assert_int_equal(PARSE("--get", "max_concurrency"), 0);
    assert_string_equal(opts.get->name, "max_concurrency");
    assert_int_equal(PARSE("--help"), 0);
    assert_int_equal(opts.action, ACTION_HELP);
    assert_int_equal(PARSE("--context", "8192", "-h"), 0);
    assert_int_equal(opts.action, ACTION_HELP);
    assert_int_equal(PARSE("--version"), 0);
    assert_int_equal(opts.action, ACTION_VERSION);
}

static void integer_errors(void **state)
{
    (void)state;
    EXPECT_ERROR("kvcalc: --context: expected an integer >= 1" TOK ", got '4q'", "--context", "4q");
    EXPECT_ERROR("kvcalc: --context: expected an integer >= 1" TOK ", got ''", "--context", "");
    EXPECT_ERROR("kvcalc: --context: expected an integer >= 1" TOK ", got ''", "--context=");
    EXPECT_ERROR("kvcalc: --context: expected an integer >= 1" TOK ", got '0'", "--context", "0");
    EXPECT_ERROR("kvcalc: --context: expected an integer >= 1" TOK ", got '-5'", "--context", "-5");
    EXPECT_ERROR("kvcalc: --context: expected an integer >= 1" TOK ", got '1.5'", "--context", "1.5");
    EXPECT_ERROR("kvcalc: --context: expected an integer >= 1" TOK ", got ' 5'", "--context", " 5");
    EXPECT_ERROR("kvcalc: --context: expected an integer >= 1" TOK ", got '5 '", "--context", "5 ");
    EXPECT_ERROR("kvcalc: --context: expected an integer >= 1" TOK ", got '0x10'", "--context", "0x10");
    EXPECT_ERROR("kvcalc: --context: expected an integer >= 1" TOK ", got '1e3'", "--context", "1e3");
    EXPECT_ERROR("kvcalc: --layers: expected an integer >= 1, got '0'", "--layers", "0");
    EXPECT_ERROR("kvcalc: --kv-heads: expected an integer >= 1, got '-1'", "--kv-heads", "-1");
    EXPECT_ERROR("kvcalc: --head-dim: expected an integer >= 1, got 'x'", "--head-dim", "x");
    EXPECT_ERROR("kvcalc: --prefix-tokens: expected an integer >= 0" TOK ", got '-1'",
                 "--prefix-tokens", "-1");
    EXPECT_ERROR("kvcalc: --prefix-requests: expected an integer >= 1, got '0'",
                 "--prefix-requests", "0");
    EXPECT_ERROR("kvcalc: --layers: expected an integer >= 1, got '9223372036854775808' "
                 "(too large: at most 9223372036854775807)",
                 "--layers", "9223372036854775808");
    EXPECT_ERROR("kvcalc: --context: expected an integer >= 1" TOK ", got "
                 "'99999999999999999999999999' (too large: at most 9223372036854775807)",
                 "--context", "99999999999999999999999999");
}

static void number_errors(void **state)
{
    (void)state;
    EXPECT_ERROR("kvcalc: --gpu-mem-gib: expected a finite number > 0, got '0'",
                 "--gpu-mem-gib", "0");
    EXPECT_ERROR("kvcalc: --gpu-mem-gib: expected a finite number > 0, got '-0'",
                 "--gpu-mem-gib", "-0");
    EXPECT_ERROR("kvcalc: --gpu-mem-gib: expected a finite number > 0, got 'nan'",
                 "--gpu-mem-gib", "nan");
    EXPECT_ERROR("kvcalc: --gpu-mem-gib: expected a finite number > 0, got 'inf'",
                 "--gpu-mem-gib", "inf");
    EXPECT_ERROR("kvcalc: --gpu-mem-gib: expected a finite number > 0, got '1e400' "
                 "(too large for a double)",
                 "--gpu-mem-gib", "1e400");
    EXPECT_ERROR("kvcalc: --params-b: expected a finite number >= 0, got '-0.1'",
                 "--params-b", "-0.1");
    EXPECT_ERROR("kvcalc: --params-b: expected a finite number >= 0, got '7B'", "--params-b",
                 "7B");
    EXPECT_ERROR("kvcalc: --params-b: expected a finite number >= 0, got '0x1p3'",
                 "--params-b", "0x1p3");
    EXPECT_ERROR("kvcalc: --params-b: expected a finite number >= 0, got '1e'", "--params-b",
                 "1e");
    EXPECT_ERROR("kvcalc: --params-b: expected a finite number >= 0, got '.'", "--params-b",
                 ".");
    EXPECT_ERROR("kvcalc: --params-b: expected a finite number >= 0, got '1,5'", "--params-b",
                 "1,5");
    EXPECT_ERROR("kvcalc: --params-b: expected a finite number >= 0, got 'infinity'",
                 "--params-b", "infinity");
    EXPECT_ERROR("kvcalc: --overhead-gib: expected a finite number >= 0, got '-1'",
                 "--overhead-gib", "-1");
    EXPECT_ERROR("kvcalc: --overhead-gib: expected a finite number >= 0, got ''",
                 "--overhead-gib", "");
}

static void dtype_format_and_key_errors(void **state)
{
    (void)state;
    EXPECT_ERROR("kvcalc: --dtype: unknown dtype 'fp64' (expected one of: fp32 fp16 bf16 fp8 "
                 "int8 int4 " DTYPE_SPELLINGS ")",
                 "--dtype", "fp64");
    EXPECT_ERROR("kvcalc: --weight-dtype: unknown dtype 'FP16'; did you mean 'fp16'? (expected one of: fp32 fp16 "
                 "bf16 fp8 int8 int4 " DTYPE_SPELLINGS ")",
                 "--weight-dtype", "FP16");
    EXPECT_ERROR("kvcalc: --format: unknown value 'xml' (expected one of: text json csv)",
                 "--format", "xml");
    assert_int_equal(PARSE("--get", "nope"), KV_USAGE_ERROR);
    assert_non_null(strstr(err, "kvcalc: --get: unknown key 'nope' (expected one of: "));
    assert_non_null(strstr(err, " max_concurrency "));
    assert_non_null(strstr(err, " kv_bytes_per_token "));
}

static void flag_errors(void **state)
{
    (void)state;
    EXPECT_ERROR("kvcalc: --context: missing value (expected an integer >= 1" TOK ")", "--context");
    EXPECT_ERROR("kvcalc: --context: missing value (expected an integer >= 1" TOK ")", "--context",
                 "--layers", "4");
    EXPECT_ERROR("kvcalc: --dtype: missing value (expected one of: fp32 fp16 bf16 fp8 int8 "
                 "int4 " DTYPE_SPELLINGS ")",
                 "--dtype");
    EXPECT_ERROR("kvcalc: --format: missing value (expected one of: text json csv)", "--format");
    EXPECT_ERROR("kvcalc: unknown option '--foo'", "--foo");
    EXPECT_ERROR("kvcalc: unknown option '--foo'", "--foo=3");
    EXPECT_ERROR("kvcalc: unknown option '--cont'", "--cont", "5"); /* no abbreviations */
    EXPECT_ERROR("kvcalc: unknown option '-x'", "-x");
    EXPECT_ERROR("kvcalc: unexpected argument 'foo'", "foo");
    EXPECT_ERROR("kvcalc: unexpected argument '--'", "--");
    EXPECT_ERROR("kvcalc: unexpected argument '-'", "-");
    EXPECT_ERROR("kvcalc: --help: unknown section '1' (expected one of: model gpu workload "
                 "engines vllm sglang trtllm llama.cpp ollama planning output)", "--help=1");
    EXPECT_ERROR("kvcalc: --version: takes no value, got '1'", "--version=1");
    /* errors stop at the first problem, in order */
    EXPECT_ERROR("kvcalc: --layers: expected an integer >= 1, got '0'", "--layers", "0",
                 "--bogus");
}

/* Hostile text cannot break the one-line promise nor send escapes to the terminal. */
static void hostile_values_are_quoted_safely(void **state)
{
    (void)state;
    EXPECT_ERROR("kvcalc: --context: expected an integer >= 1" TOK ", got '4????[31m'", "--context",
                 "4\n\x1b\r\t[31m");
    char long_value[2000];
    memset(long_value, '9', sizeof long_value - 2);
    long_value[sizeof long_value - 2] = 'x';
    long_value[sizeof long_value - 1] = '\0';
    assert_int_equal(PARSE("--context", long_value), KV_USAGE_ERROR);
    assert_non_null(strstr(err, "999...'"));
    assert_true(strlen(err) < 300); /* 200 bytes of the value at most, then "..." */
}

static void core_status_messages(void **state)
{
    (void)state;
    kv_spec s;
    kv_spec_defaults(&s);
    kv_status_error(&s, NULL, KV_ERR_PARAMS_B, err, sizeof err);
    assert_string_equal(err, "kvcalc: --params-b: must be a finite number >= 0 whose weights in "
                             "bytes (params x 1e9 x dtype bytes) stay a finite double");
    kv_status_error(&s, NULL, KV_ERR_GPU_MEM, err, sizeof err);
    assert_non_null(strstr(err, "kvcalc: --gpu-mem-gib: "));
    kv_status_error(&s, NULL, KV_ERR_MEMORY_RANGE, err, sizeof err);
    assert_non_null(strstr(err, "kvcalc: --gpu-mem-gib, --params-b, --overhead-gib: "));
}

/* vLLM's human-readable token counts on every token flag (and only there): 1k = 1,000,
 * 1K = 1,024, 25.6k = 25,600, 1m = 10^6, 1M = 2^20; never rounded. */
static void token_suffixes(void **state)
{
    (void)state;
    static const struct { const char *text; int64_t want; } ok[] = {
        {"1k", 1000}, {"1K", 1024}, {"25.6k", 25600}, {"25.600k", 25600}, {"1m", 1000000},
        {"1M", 1048576}, {"2g", 2000000000}, {"1G", 1073741824}, {"0.5k", 500},
        {"131072", 131072}, {"128K", 131072}};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        assert_int_equal(PARSE("--context", ok[i].text), 0);
        assert_int_equal(spec.context, ok[i].want);
        assert_int_equal(PARSE("--max-model-len", ok[i].text, "--prefix-tokens", "1k"), 0);
        assert_int_equal(spec.context, ok[i].want);
        assert_int_equal(spec.prefix_tokens, 1000);
    }
    assert_int_equal(PARSE("--engine", "llama.cpp", "-c", "32K", "-ub", "1k"), 0);
    assert_int_equal(spec.llamacpp.ctx_size.value, 32768);
    assert_int_equal(spec.llamacpp.ubatch_size, 1000);
    assert_int_equal(PARSE("--engine", "vllm", "--max-num-batched-tokens", "8K"), 0);
    assert_int_equal(spec.vllm.max_num_batched_tokens.value, 8192);
    EXPECT_ERROR("kvcalc: --context: '1.0005k' is not a whole number of tokens", "--context",
                 "1.0005k");
    EXPECT_ERROR("kvcalc: --context: '1.5K': decimals are not allowed with the binary suffixes "
                 "K, M, G, T (did you mean '1.5k'?)", "--context", "1.5K");
    /* not a token count: no suffixes */
    EXPECT_ERROR("kvcalc: --layers: expected an integer >= 1, got '1k'", "--layers", "1k");
}

/* "Did you mean": the closest name when it is close, nothing when it is not. */
static void suggestions(void **state)
{
    (void)state;
    EXPECT_ERROR("kvcalc: unknown option '--kv_heads'; did you mean '--kv-heads'?", "--kv_heads",
                 "4");
    EXPECT_ERROR("kvcalc: unknown option '--contxt'; did you mean '--context'?", "--contxt", "4");
    EXPECT_ERROR("kvcalc: unknown option '-ngll'; did you mean '-ngl'?", "-ngll", "4");
    EXPECT_ERROR("kvcalc: unknown option '-ctx-size'; did you mean '--ctx-size'?", "-ctx-size");
    EXPECT_ERROR("kvcalc: unknown option '--zzzzzz'", "--zzzzzz");
    EXPECT_ERROR("kvcalc: --format: unknown value 'jsn'; did you mean 'json'? (expected one of: "
                 "text json csv)", "--format", "jsn");
    assert_int_equal(PARSE("--gpu", "h1000"), KV_USAGE_ERROR);
    assert_non_null(strstr(err, "unknown GPU 'h1000'; did you mean 'h100'?"));
    assert_int_equal(PARSE("--gpu", "NVIDIA H100 80GB HBM"), KV_USAGE_ERROR);
    assert_non_null(strstr(err, "did you mean 'NVIDIA H100 80GB HBM3'?"));
    assert_int_equal(PARSE("--dtype", "bf61"), KV_USAGE_ERROR);
    assert_non_null(strstr(err, "unknown dtype 'bf61'; did you mean 'bf16'?"));
    assert_int_equal(PARSE("--get", "max_concurency"), KV_USAGE_ERROR);
    assert_non_null(strstr(err, "did you mean 'max_concurrency'?"));
    assert_int_equal(PARSE("--require", "max_concurency>=1"), KV_USAGE_ERROR);
    assert_non_null(strstr(err, "did you mean 'max_concurrency'?"));
    assert_int_equal(PARSE("--get", "qqqqqqqq"), KV_USAGE_ERROR);
    assert_null(strstr(err, "did you mean"));
}

/* The pipeline's report says nothing of sources (NULL) until its caller does: a renderer
 * given one straight from the pipeline (a fuzz target, a sweep) prints "sources": null. */
static void pipeline_report_without_sources(void **state)
{
    (void)state;
    static kv_store store;
    kv_report rep;
    assert_int_equal(PARSE("--context", "8192"), 0);
    rep.sources = (const struct kv_sources *)&store; /* garbage the pipeline must clear */
    assert_int_equal(kv_pipeline_run(&opts, &spec, &store, &rep), KV_OK);
    assert_null(rep.sources);
    assert_null(rep.layouts);
    FILE *sink = fopen("/dev/null", "w");
    assert_non_null(sink);
    report_json(sink, &rep);
    fclose(sink);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults_without_arguments),
        cmocka_unit_test(both_value_forms_and_last_wins),
        cmocka_unit_test(output_options),
        cmocka_unit_test(integer_errors),
        cmocka_unit_test(number_errors),
        cmocka_unit_test(dtype_format_and_key_errors),
        cmocka_unit_test(flag_errors),
        cmocka_unit_test(hostile_values_are_quoted_safely),
        cmocka_unit_test(core_status_messages),
        cmocka_unit_test(token_suffixes),
        cmocka_unit_test(suggestions),
        cmocka_unit_test(pipeline_report_without_sources),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
