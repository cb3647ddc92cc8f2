/*
 * test_json.c - the strict JSON tokenizer: what it accepts, what it refuses, and where it
 * says the problem is.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "kvcalc_json.h"
#include "run.h"

static json_tok toks[256];
static json_error jerr;

static long parse(const char *text)
{
    return json_parse(text, strlen(text), toks, 256, JSON_DEFAULT_MAX_DEPTH, &jerr);
}

static void accepts_a_config(void **state)
{
    (void)state;
    const char *text = "{\n  \"num_hidden_layers\": 28,\n  \"num_key_value_heads\": 4,\n"
                       "  \"rope\": {\"type\": null, \"f\": [1.5e3, -0.25, true, false]},\n"
                       "  \"name\": \"Qwen\\/7B \\u00e9\\ud83d\\ude00 \xc3\xa9\"\n}";
    long n = parse(text);
    /* object, 4 keys, 28, 4, inner object with 2 keys, null, array with 4 values, string */
    assert_int_equal(n, 1 + 4 + 1 + 1 + 1 + 2 + 1 + 1 + 4 + 1);
    assert_int_equal(toks[0].type, JSON_OBJECT);
    assert_int_equal(toks[0].size, 4);
    size_t layers = json_find(text, toks, 0, "num_hidden_layers");
    assert_int_equal(toks[layers].type, JSON_NUMBER);
    assert_true(json_number(text, &toks[layers]) == 28.0);
    size_t rope = json_find(text, toks, 0, "rope");
    assert_int_equal(toks[rope].type, JSON_OBJECT);
    size_t f = json_find(text, toks, rope, "f");
    assert_int_equal(toks[f].type, JSON_ARRAY);
    assert_int_equal(toks[f].size, 4);
    assert_true(json_number(text, &toks[f + 1]) == 1500.0);
    assert_true(json_number(text, &toks[f + 2]) == -0.25);
    assert_int_equal(toks[f + 3].type, JSON_TRUE);
    assert_int_equal(json_find(text, toks, 0, "missing"), 0);
    /* a key after a nested value is still found: next skips whole subtrees */
    size_t name = json_find(text, toks, 0, "name");
    assert_int_equal(toks[name].type, JSON_STRING);
}

static void duplicate_keys_last_wins(void **state)
{
    (void)state;
    const char *text = "{\"a\": 1, \"b\": [1, 2], \"a\": 2}";
    assert_true(parse(text) > 0);
    assert_true(json_number(text, &toks[json_find(text, toks, 0, "a")]) == 2.0);
}

static void escaped_keys_compare_decoded(void **state)
{
    (void)state;
    const char *text = "{\"a\\\"b\": 1, \"t\\tab\": 2}";
    assert_true(parse(text) > 0);
    assert_int_not_equal(json_find(text, toks, 0, "a\"b"), 0);
    assert_int_not_equal(json_find(text, toks, 0, "t\tab"), 0);
    assert_int_equal(json_find(text, toks, 0, "ab"), 0);
}

static void scalars_at_top_level(void **state)
{
    (void)state;
    assert_int_equal(parse(" 0 "), 1);
    assert_int_equal(parse("-0.0e+0"), 1);
    assert_int_equal(parse("\"x\""), 1);
    assert_int_equal(parse("null"), 1);
    assert_int_equal(parse("[]"), 1);
    assert_int_equal(parse("{}"), 1);
}

static void expect_fail(const char *text, size_t line, size_t col, const char *msg)
{
    assert_int_equal(parse(text), -1);
    assert_string_equal(jerr.msg, msg);
    assert_int_equal(jerr.line, line);
    assert_int_equal(jerr.col, col);
}

static void refuses_malformed_input(void **state)
{
    (void)state;
    expect_fail("", 1, 1, "unexpected end of input");
    expect_fail("{\"a\": 1,}", 1, 9, "trailing comma");
    expect_fail("[1, 2,]", 1, 7, "trailing comma");
    expect_fail("{\"a\": 1\n \"b\": 2}", 2, 2, "expected ',' or '}'");
    expect_fail("[1 2]", 1, 4, "expected ',' or ']'");
    expect_fail("{\"a\" 1}", 1, 6, "expected ':'");
    expect_fail("{a: 1}", 1, 2, "expected a string key");
    expect_fail("{\"a\": 01}", 1, 8, "leading zero in number");
    expect_fail("{\"a\": 1.}", 1, 9, "expected a digit after '.'");
    expect_fail("{\"a\": 1e}", 1, 9, "expected a digit in exponent");
    expect_fail("{\"a\": -}", 1, 8, "expected a digit");
    expect_fail("{\"a\": +1}", 1, 7, "unexpected character");
    expect_fail("{\"a\": NaN}", 1, 7, "unexpected character");
    expect_fail("{\"a\": tru}", 1, 7, "unexpected character");
    expect_fail("{\"a\": \"x}", 1, 10, "unterminated string");
    expect_fail("{\"a\": \"\\x\"}", 1, 9, "bad escape in string");
    expect_fail("{\"a\": \"\\u12G4\"}", 1, 10, "bad \\u escape");
    expect_fail("{\"a\": \"\\ud800\"}", 1, 14, "unpaired surrogate in \\u escape");
    expect_fail("{\"a\": \"\\udc00\"}", 1, 14, "unpaired surrogate in \\u escape");
    expect_fail("{\"a\": \"x\ty\"}", 1, 9, "control character in string");
    expect_fail("{\"a\": \"\xc3\"}", 1, 8, "invalid UTF-8");
    expect_fail("{\"a\": \"\xc0\xaf\"}", 1, 8, "invalid UTF-8");       /* overlong '/' */
    expect_fail("{\"a\": \"\xed\xa0\x80\"}", 1, 8, "invalid UTF-8");   /* a surrogate */
    expect_fail("{\"a\": \"\xf4\x90\x80\x80\"}", 1, 8, "invalid UTF-8"); /* > U+10FFFF */
    expect_fail("{} {}", 1, 4, "unexpected data after the JSON value");
    expect_fail("\xEF\xBB\xBF{}", 1, 1, "byte order mark not allowed");
    expect_fail("{\"a\": 1} // comment", 1, 10, "unexpected data after the JSON value");
}

static void bounds_depth_and_tokens(void **state)
{
    (void)state;
    /* 100,000 nested arrays: refused at the depth limit, no stack overflow */
    size_t deep = 100000;
    char *text = nested_arrays(deep);
    assert_int_equal(json_parse(text, 2 * deep, toks, 256, 64, &jerr), -1);
    assert_string_equal(jerr.msg, "nesting too deep");
    assert_int_equal(jerr.col, 65);
    free(text);
    /* exactly at the limit is fine */
    assert_int_equal(json_parse("[[[]]]", 6, toks, 256, 3, &jerr), 3);
    assert_int_equal(json_parse("[[[[]]]]", 8, toks, 256, 3, &jerr), -1);
    /* too many values for the caller's array */
    assert_int_equal(json_parse("[1,2,3]", 7, toks, 3, 64, &jerr), -1);
    assert_string_equal(jerr.msg, "too many values");
    /* the length bounds the read: a NUL-free buffer without terminator is fine */
    char raw[4] = {'[', '1', ']', 'x'};
    assert_int_equal(json_parse(raw, 3, toks, 256, 64, &jerr), 2);
}

static void absurd_numbers(void **state)
{
    (void)state;
    char text[600];
    memset(text, '1', 500);
    text[500] = '\0';
    assert_int_equal(parse(text), 1);
    assert_true(json_number(text, &toks[0]) != json_number(text, &toks[0])); /* NaN */
    assert_int_equal(parse("1e999"), 1); /* valid JSON; its value is not finite */
    assert_true(json_number("1e999", &toks[0]) > 1e308);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(accepts_a_config),        cmocka_unit_test(duplicate_keys_last_wins),
        cmocka_unit_test(escaped_keys_compare_decoded), cmocka_unit_test(scalars_at_top_level),
        cmocka_unit_test(refuses_malformed_input), cmocka_unit_test(bounds_depth_and_tokens),
        cmocka_unit_test(absurd_numbers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
