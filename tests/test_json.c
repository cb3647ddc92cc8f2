/*
 * test_json.c - the strict JSON tokenizer: what it accepts, what it refuses, and where it
 * says the problem is.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvcalc.h"
#include "kvcalc_json.h"
#include "run.h"

static kv_json_tok toks[256];
static kv_json_error jerr;

static long parse(const char *text)
{
    return kv_json_parse(text, strlen(text), toks, 256, KV_JSON_DEFAULT_MAX_DEPTH, &jerr);
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
    assert_int_equal(toks[0].type, KV_JSON_OBJECT);
    assert_int_equal(toks[0].size, 4);
    size_t layers = kv_json_find(text, toks, 0, "num_hidden_layers");
    assert_int_equal(toks[layers].type, KV_JSON_NUMBER);
    assert_true(kv_json_number(text, &toks[layers]) == 28.0);
    size_t rope = kv_json_find(text, toks, 0, "rope");
    assert_int_equal(toks[rope].type, KV_JSON_OBJECT);
    size_t f = kv_json_find(text, toks, rope, "f");
    assert_int_equal(toks[f].type, KV_JSON_ARRAY);
    assert_int_equal(toks[f].size, 4);
    assert_true(kv_json_number(text, &toks[f + 1]) == 1500.0);
    assert_true(kv_json_number(text, &toks[f + 2]) == -0.25);
    assert_int_equal(toks[f + 3].type, KV_JSON_TRUE);
    assert_int_equal(kv_json_find(text, toks, 0, "missing"), 0);
    /* a key after a nested value is still found: next skips whole subtrees */
    size_t name = kv_json_find(text, toks, 0, "name");
    assert_int_equal(toks[name].type, KV_JSON_STRING);
}

static void duplicate_keys_last_wins(void **state)
{
    (void)state;
    const char *text = "{\"a\": 1, \"b\": [1, 2], \"a\": 2}";
    assert_true(parse(text) > 0);
    assert_true(kv_json_number(text, &toks[kv_json_find(text, toks, 0, "a")]) == 2.0);
}

static void escaped_keys_compare_decoded(void **state)
{
    (void)state;
    const char *text = "{\"a\\\"b\": 1, \"t\\tab\": 2}";
    assert_true(parse(text) > 0);
    assert_int_not_equal(kv_json_find(text, toks, 0, "a\"b"), 0);
    assert_int_not_equal(kv_json_find(text, toks, 0, "t\tab"), 0);
    assert_int_equal(kv_json_find(text, toks, 0, "ab"), 0);
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
    assert_int_equal(kv_json_parse(text, 2 * deep, toks, 256, 64, &jerr), -1);
    assert_string_equal(jerr.msg, "nesting too deep");
    assert_int_equal(jerr.col, 65);
    free(text);
    /* exactly at the limit is fine */
    assert_int_equal(kv_json_parse("[[[]]]", 6, toks, 256, 3, &jerr), 3);
    assert_int_equal(kv_json_parse("[[[[]]]]", 8, toks, 256, 3, &jerr), -1);
    /* too many values for the caller's array */
    assert_int_equal(kv_json_parse("[1,2,3]", 7, toks, 3, 64, &jerr), -1);
    assert_string_equal(jerr.msg, "too many values");
    /* the length bounds the read: a NUL-free buffer without terminator is fine */
    char raw[4] = {'[', '1', ']', 'x'};
    assert_int_equal(kv_json_parse(raw, 3, toks, 256, 64, &jerr), 2);
}

static void absurd_numbers(void **state)
{
    (void)state;
    char text[600];
    memset(text, '1', 500);
    text[500] = '\0';
    assert_int_equal(parse(text), 1);
    assert_true(kv_json_number(text, &toks[0]) != kv_json_number(text, &toks[0])); /* NaN */
    assert_int_equal(parse("1e999"), 1); /* valid JSON; its value is not finite */
    assert_true(kv_json_number("1e999", &toks[0]) > 1e308);
}

/* The string value of the only key of a one-key object. */
static const kv_json_tok *string_value(const char *text)
{
    assert_true(parse(text) > 0);
    assert_int_equal(toks[2].type, KV_JSON_STRING);
    return &toks[2];
}

static void decodes_every_escape(void **state)
{
    (void)state;
    char out[64];
    /* \" \\ \/ \b \f \n \r \t: 22 5C 2F 08 0C 0A 0D 09 */
    const char *text = "{\"k\": \"\\\"\\\\\\/\\b\\f\\n\\r\\t\"}";
    assert_int_equal(kv_json_string_decode(text, string_value(text), out, sizeof out), 8);
    assert_memory_equal(out, "\x22\x5c\x2f\x08\x0c\x0a\x0d\x09", 9); /* and the NUL */
    /* \u0041 = 'A'; \u001b = ESC, kept (the display layer replaces control bytes);
     * \u00e9 = U+00E9 = 110 00011, 10 101001 = C3 A9;
     * \u20ac = U+20AC = 1110 0010, 10 000010, 10 101100 = E2 82 AC;
     * \ud83d\ude00 = 0x10000 + (0x3D << 10) + 0x200 = U+1F600 = F0 9F 98 80 */
    text = "{\"k\": \"\\u0041\\u001b\\u00e9\\u20AC\\ud83d\\ude00!\"}";
    assert_int_equal(kv_json_string_decode(text, string_value(text), out, sizeof out),
                     1 + 1 + 2 + 3 + 4 + 1);
    assert_memory_equal(out, "A\x1b\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80!", 13);
    /* raw UTF-8 passes through; an empty string is empty */
    text = "{\"k\": \"caf\xc3\xa9\"}";
    assert_int_equal(kv_json_string_decode(text, string_value(text), out, sizeof out), 5);
    assert_string_equal(out, "caf\xc3\xa9");
    text = "{\"k\": \"\"}";
    assert_int_equal(kv_json_string_decode(text, string_value(text), out, sizeof out), 0);
    assert_string_equal(out, "");
}

/* Never writes past cap, always ends with a NUL, cuts at a character boundary, and returns
 * the whole decoded length (>= cap means truncated). "abc\u00e9" decodes to 5 bytes. */
static void decode_truncates_safely(void **state)
{
    (void)state;
    const char *text = "{\"k\": \"abc\\u00e9\"}";
    const kv_json_tok *t = string_value(text);
    char out[8];
    static const struct {
        size_t cap;
        const char *want; /* what fits: whole characters in cap - 1 bytes */
    } cases[] = {{6, "abc\xc3\xa9"}, {5, "abc"}, {4, "abc"}, {3, "ab"}, {1, ""}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memset(out, 'X', sizeof out);
        assert_int_equal(kv_json_string_decode(text, t, out, cases[i].cap), 5);
        assert_string_equal(out, cases[i].want);
        for (size_t j = cases[i].cap; j < sizeof out; j++)
            assert_int_equal(out[j], 'X');
    }
    memset(out, 'X', sizeof out);
    assert_int_equal(kv_json_string_decode(text, t, out, 0), 5); /* cap 0: writes nothing */
    assert_int_equal(out[0], 'X');
}

/* Keys and values compare after decoding every escape, \u included. */
static void compares_decoded_unicode(void **state)
{
    (void)state;
    const char *text = "{\"\\u006dodel\": \"ll\\u0061ma\", \"\\u00e9\": 1}";
    assert_true(parse(text) > 0);
    size_t v = kv_json_find(text, toks, 0, "model");
    assert_int_not_equal(v, 0);
    assert_true(kv_json_string_eq(text, &toks[v], "llama"));
    assert_false(kv_json_string_eq(text, &toks[v], "llam"));
    assert_false(kv_json_string_eq(text, &toks[v], "llamas"));
    assert_int_not_equal(kv_json_find(text, toks, 0, "\xc3\xa9"), 0);
}

/* A config's strings read back decoded: the name keeps its newline and ESC (for the display
 * layer to neutralise), model_type, dtype and layer_types entries match after decoding. */
static void config_strings_are_decoded(void **state)
{
    (void)state;
    const char *text = "{\"_name_or_path\": \"evil\\n\\u001b[31m\", \"model_type\": \"ll\\u0061ma\","
                       " \"num_hidden_layers\": 2, \"num_attention_heads\": 8, \"head_dim\": 64,"
                       " \"torch_dtype\": \"float\\u0031\\u0036\", \"sliding_window\": 512,"
                       " \"layer_types\": [\"sliding\\u005fattention\", \"full_attention\"]}";
    kv_spec s;
    kv_model_info info;
    char err[256];
    int64_t counts[KV_LAYER_KINDS];
    kv_spec_defaults(&s);
    assert_int_equal(kv_config_read(text, strlen(text), "c.json", &s, &info, err, sizeof err), 0);
    assert_string_equal(info.name, "evil\n\x1b[31m");
    assert_string_equal(info.model_type, "llama");
    assert_int_equal(s.dtype, KV_DTYPE_FP16);
    kv_layer_counts(&s.layout, s.layers, counts);
    assert_int_equal(counts[KV_LAYER_SLIDING], 1);
    assert_int_equal(counts[KV_LAYER_FULL], 1);
    /* an unknown dtype is quoted as written in the file: the message stays one line */
    text = "{\"num_hidden_layers\": 2, \"num_attention_heads\": 8, \"head_dim\": 64, "
           "\"torch_dtype\": \"x\\ny\"}";
    assert_int_equal(kv_config_read(text, strlen(text), "c.json", &s, &info, err, sizeof err), KV_ERR_FORMAT);
    assert_string_equal(err, "c.json:1:83: torch_dtype: unknown dtype 'x\\ny' (expected "
                             "bfloat16, float16 or float32)");
}

/* kv_json_find and kv_json_string_eq compare the bytes as written first (issue 22): the
 * answer must stay the decoded comparison's, whichever way a key or a name is written. */
static void raw_and_escaped_keys(void **state)
{
    (void)state;
    /* key 1: "dtype" escaped (longer as written); key 2: a backslash pair; key 3: the plain
     * spelling of key 1, later (it wins); key 4: a prefix of key 1 */
    const char *text = "{\"dt\\u0079pe\": 1, \"a\\\\b\": 2, \"dtype\": 3, \"dtyp\": 4, "
                       "\"\\u00e9\": 5, \"\xc3\xa9x\": 6}";
    assert_true(parse(text) > 0);
    assert_true(kv_json_number(text, &toks[kv_json_find(text, toks, 0, "dtype")]) == 3.0);
    assert_true(kv_json_number(text, &toks[kv_json_find(text, toks, 0, "a\\b")]) == 2.0);
    assert_int_equal(kv_json_find(text, toks, 0, "a\\\\b"), 0); /* the bytes as written */
    assert_true(kv_json_number(text, &toks[kv_json_find(text, toks, 0, "dtyp")]) == 4.0);
    assert_int_equal(kv_json_find(text, toks, 0, "dty"), 0);
    assert_int_equal(kv_json_find(text, toks, 0, "dtypes"), 0);
    assert_true(kv_json_number(text, &toks[kv_json_find(text, toks, 0, "\xc3\xa9")]) == 5.0);
    assert_true(kv_json_number(text, &toks[kv_json_find(text, toks, 0, "\xc3\xa9x")]) == 6.0);
    assert_int_equal(kv_json_find(text, toks, 0, "\\u00e9"), 0);
    /* the escaped key alone: found by its decoded name only */
    const char *one = "{\"dt\\u0079pe\": 1}";
    assert_true(parse(one) > 0);
    assert_int_equal(kv_json_find(one, toks, 0, "dtype"), 2);
    assert_int_equal(kv_json_find(one, toks, 0, "dt\\u0079pe"), 0);
    assert_true(kv_json_string_eq(one, &toks[1], "dtype"));
    assert_false(kv_json_string_eq(one, &toks[1], "dtypE"));
    assert_false(kv_json_string_eq(one, &toks[1], "dt"));
}

/* kv_json_parse_grow grows its array as it goes (no parse from the start again): the tokens
 * and the errors, with their line and column, are those of one parse with the whole array. */
static void grows_in_one_pass(void **state)
{
    (void)state;
    static char text[80000];
    size_t n = 0;
    n += (size_t)snprintf(text + n, sizeof text - n, "{\n");
    for (int i = 0; i < 2000; i++)
        n += (size_t)snprintf(text + n, sizeof text - n, "  \"k%d\": [%d, \"\xc3\xa9\"],\n", i, i);
    n += (size_t)snprintf(text + n, sizeof text - n, "  \"end\": true\n}");
    static kv_json_tok whole[8192];
    kv_json_tok *grown = NULL;
    kv_json_error e1, e2;
    long a = kv_json_parse(text, n, whole, 8192, 8, &e1);
    long b = kv_json_parse_grow(text, n, &grown, 1, 8192, 8, &e2);
    assert_int_equal(a, 1 + 2000 * 4 + 2);
    assert_int_equal(a, b);
    for (long i = 0; i < a; i++) { /* field by field: the padding is not compared */
        assert_int_equal(whole[i].type, grown[i].type);
        assert_int_equal(whole[i].start, grown[i].start);
        assert_int_equal(whole[i].end, grown[i].end);
        assert_int_equal(whole[i].size, grown[i].size);
        assert_int_equal(whole[i].next, grown[i].next);
    }
    /* too small a bound: "too many values" where the bound is met */
    b = kv_json_parse_grow(text, n, &grown, 3, 1000, 8, &e2);
    a = kv_json_parse(text, n, whole, 1000, 8, &e1);
    assert_int_equal(b, -1);
    assert_int_equal(a, -1);
    assert_string_equal(e2.msg, "too many values");
    assert_int_equal(e2.line, e1.line);
    assert_int_equal(e2.col, e1.col);
    assert_int_equal(e2.line, 251); /* value 1000: k249's array, then its "\xc3\xa9" */
    /* a syntax error after the array has grown: its line and column (characters) */
    text[n - 2] = ','; /* "true,}" */
    b = kv_json_parse_grow(text, n, &grown, 1, 8192, 8, &e2);
    a = kv_json_parse(text, n, whole, 8192, 8, &e1);
    assert_int_equal(b, -1);
    assert_int_equal(a, -1);
    assert_string_equal(e2.msg, "trailing comma");
    assert_string_equal(e1.msg, "trailing comma");
    assert_int_equal(e2.line, 2002);
    assert_int_equal(e2.col, 15);
    assert_int_equal(e1.line, 2002);
    assert_int_equal(e1.col, 15);
    free(grown);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(accepts_a_config),        cmocka_unit_test(duplicate_keys_last_wins),
        cmocka_unit_test(escaped_keys_compare_decoded), cmocka_unit_test(scalars_at_top_level),
        cmocka_unit_test(refuses_malformed_input), cmocka_unit_test(bounds_depth_and_tokens),
        cmocka_unit_test(absurd_numbers),          cmocka_unit_test(decodes_every_escape),
        cmocka_unit_test(decode_truncates_safely), cmocka_unit_test(compares_decoded_unicode),
        cmocka_unit_test(config_strings_are_decoded), cmocka_unit_test(raw_and_escaped_keys),
        cmocka_unit_test(grows_in_one_pass),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
