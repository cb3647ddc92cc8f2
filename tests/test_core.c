/*
 * test_core.c - the pure sizing core against the lesson's numbers and hand arithmetic.
 * Every expected value is worked out in the comment beside it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "kvcalc.h"

static kv_result compute(const kv_spec *s)
{
    kv_result r;
    assert_int_equal(kv_compute(s, &r), KV_OK);
    return r;
}

static kv_spec defaults(void)
{
    kv_spec s;
    kv_spec_defaults(&s);
    return s;
}

/* The lesson's worked example: Qwen2.5-7B geometry on a 48 GiB card. */
static void lesson_numbers(void **state)
{
    (void)state;
    kv_spec s = defaults();
    kv_result r = compute(&s);
    /* 2 x 28 x 4 x 128 x 2 B = 57,344 B per token */
    assert_true(r.kv_bytes_per_token == 57344.0);
    /* 57,344 x 4,096 = 234,881,024 B = 224.0 MiB per request */
    assert_true(r.kv_bytes_per_request == 234881024.0);
    assert_true(r.kv_bytes_per_request / KV_MIB == 224.0);
    /* weights 7e9 x 2 = 1.4e10 B; GPU 48 x 2^30 = 51,539,607,552 B; overhead 2^31 */
    assert_true(r.weights_bytes == 14000000000.0);
    assert_true(r.gpu_mem_bytes == 51539607552.0);
    assert_true(r.overhead_bytes == 2147483648.0);
    /* free = 51,539,607,552 - 14,000,000,000 - 2,147,483,648 = 35,392,123,904 B */
    assert_true(r.free_kv_bytes == 35392123904.0);
    assert_true(r.fits);
    /* 35,392,123,904 / 234,881,024 = 150.68 -> ~150 concurrent */
    assert_true(r.max_concurrency == 150.0);
}

static void rows_standard_and_custom(void **state)
{
    (void)state;
    static const int64_t std[] = {1024, 2048, 4096, 8192, 16384, 32768};
    kv_spec s = defaults();
    kv_result r = compute(&s);
    kv_table t;
    kv_table_compute(&s, &r, &t);
    /* 4,096 is a standard context: six rows, the third marked */
    assert_int_equal(t.n_rows, 6);
    for (size_t i = 0; i < 6; i++) {
        assert_int_equal(t.rows[i].context, std[i]);
        assert_int_equal(t.rows[i].is_setting, i == 2);
    }
    /* 1,024-token row: 57,344 x 1,024 = 58,720,256 B; 35,392,123,904 / that = 602.7 */
    assert_true(t.rows[0].kv_bytes_per_request == 58720256.0);
    assert_true(t.rows[0].max_concurrency == 602.0);

    /* 3,000 is merged in order: 1024 2048 3000 4096 ... */
    s.context = 3000;
    r = compute(&s);
    kv_table_compute(&s, &r, &t);
    assert_int_equal(t.n_rows, 7);
    assert_int_equal(t.rows[2].context, 3000);
    assert_true(t.rows[2].is_setting);
    assert_int_equal(t.rows[3].context, 4096);
    assert_false(t.rows[3].is_setting);

    /* below and above every standard context: first and last row */
    s.context = 1;
    r = compute(&s);
    kv_table_compute(&s, &r, &t);
    assert_int_equal(t.rows[0].context, 1);
    assert_true(t.rows[0].is_setting);
    s.context = 1000000;
    r = compute(&s);
    kv_table_compute(&s, &r, &t);
    assert_int_equal(t.n_rows, 7);
    assert_int_equal(t.rows[6].context, 1000000);
    assert_true(t.rows[6].is_setting);
}

/* "Double the context, halve the concurrency." */
static void drill_context_doubles(void **state)
{
    (void)state;
    kv_spec s = defaults();
    kv_result r4k = compute(&s);
    s.context = 8192;
    kv_result r8k = compute(&s);
    assert_true(r8k.kv_bytes_per_request == 2 * r4k.kv_bytes_per_request);
    /* floor(x / 2) of the 4k figure: 150 -> 75 */
    assert_true(r8k.max_concurrency == 75.0);
    assert_true(r8k.max_concurrency == floor(r4k.max_concurrency / 2));
}

/* "Turn off GQA": 28 KV heads instead of 4 is 7x the cache. */
static void drill_no_gqa(void **state)
{
    (void)state;
    kv_spec s = defaults();
    kv_result gqa = compute(&s);
    s.kv_heads = 28;
    kv_result mha = compute(&s);
    assert_true(mha.kv_bytes_per_token == 7 * gqa.kv_bytes_per_token); /* 401,408 B */
    assert_true(mha.kv_bytes_per_token == 401408.0);
    /* 35,392,123,904 / (401,408 x 4,096 = 1,644,167,168) = 21.5 -> 21 */
    assert_true(mha.max_concurrency == 21.0);
}

/* Quantized weights free KV room: int8 halves 14e9 B of weights to 7e9. */
static void drill_int8_weights(void **state)
{
    (void)state;
    kv_spec s = defaults();
    s.weight_dtype = KV_DTYPE_INT8;
    kv_result r = compute(&s);
    assert_true(r.weights_bytes == 7000000000.0);
    /* free 51,539,607,552 - 7e9 - 2,147,483,648 = 42,392,123,904; / 234,881,024 = 180.5 */
    assert_true(r.max_concurrency == 180.0);
}

static void prefix_savings(void **state)
{
    (void)state;
    kv_spec s = defaults();
    kv_result r = compute(&s);
    /* (50 - 1) x 1,024 x 57,344 = 2,877,292,544 B (2.68 GiB); / 234,881,024 = 12.25 */
    assert_true(r.prefix_saved_bytes == 2877292544.0);
    assert_true(r.prefix_extra_concurrency == 12.0);

    s.prefix_requests = 200;
    s.prefix_tokens = 2048;
    r = compute(&s);
    /* 199 x 2,048 x 57,344 = 23,370,661,888 B; / 234,881,024 = 99.5 -> 99 */
    assert_true(r.prefix_saved_bytes == 23370661888.0);
    assert_true(r.prefix_extra_concurrency == 99.0);

    s.prefix_requests = 1; /* one request shares with nobody */
    r = compute(&s);
    assert_true(r.prefix_saved_bytes == 0.0);
    assert_true(r.prefix_extra_concurrency == 0.0);

    s.prefix_requests = 50;
    s.prefix_tokens = 0;
    r = compute(&s);
    assert_true(r.prefix_saved_bytes == 0.0);

    /* a prefix longer than the context still counts what is shared:
     * 9 x 8,192 x 57,344 = 4,227,858,432 B = 18 requests of 4,096 tokens */
    s.prefix_requests = 10;
    s.prefix_tokens = 8192;
    r = compute(&s);
    assert_true(r.prefix_saved_bytes == 4227858432.0);
    assert_true(r.prefix_extra_concurrency == 18.0);
}

/* Prefix caching saves, in each layer, only the prefix tokens [0, P) that layer still holds
 * at the request's context C: a sliding layer (window W) holds [max(0, C - W), C), a chunked
 * layer (chunk K) the current chunk [floor((C - 1) / K) x K, C); full layers the whole
 * prefix, as in the lesson. */
static void prefix_on_windowed_layers(void **state)
{
    (void)state;
    /* Mistral-7B-v0.1's geometry: 32 sliding layers (W 4,096), 8 KV heads, head 128, 2 bytes:
     * 2 x 32 x 8 x 128 x 2 = 131,072 B per token; 50 requests share 1,024 tokens (49 sharers) */
    kv_spec s = defaults();
    s.layers = 32;
    s.kv_heads = 8;
    s.layout.pattern_len = 1;
    s.layout.pattern[0] = KV_LAYER_SLIDING;
    s.layout.window = 4096;
    /* C 2,048 < W: holds [0, 2,048), the whole prefix: 49 x 1,024 x 131,072 = 6,576,668,672 */
    s.context = 2048;
    assert_true(compute(&s).prefix_saved_bytes == 6576668672.0);
    /* C 4,500: holds [404, 4,500); of the prefix [404, 1,024) = 620 tokens:
     * 49 x 620 x 131,072 = 3,981,967,360 */
    s.context = 4500;
    assert_true(compute(&s).prefix_saved_bytes == 3981967360.0);
    /* C 16,384: holds [12,288, 16,384), none of the prefix: 0 (not 6.12 GiB) */
    s.context = 16384;
    kv_result r = compute(&s);
    assert_true(r.prefix_saved_bytes == 0.0);
    assert_true(r.prefix_extra_concurrency == 0.0);

    /* Llama-4-style: layers 3 chunked (K 8,192) + 1 full, 8 KV heads, head 128, 2 bytes:
     * full 2 x 1 x 8 x 128 x 2 = 4,096 B/token, chunked 2 x 3 x 8 x 128 x 2 = 12,288 */
    s = defaults();
    s.layers = 4;
    s.kv_heads = 8;
    s.layout.pattern_len = 4;
    s.layout.pattern[0] = s.layout.pattern[1] = s.layout.pattern[2] = KV_LAYER_CHUNKED;
    s.layout.pattern[3] = KV_LAYER_FULL;
    s.layout.chunk = 8192;
    /* C 8,192: chunk floor(8,191 / 8,192) x 8,192 = 0: [0, 8,192) holds the prefix:
     * 49 x 1,024 x 4,096 = 205,520,896 + 49 x 1,024 x 12,288 = 616,562,688 -> 822,083,584 */
    s.context = 8192;
    assert_true(compute(&s).prefix_saved_bytes == 822083584.0);
    /* C 8,193: chunk [8,192, 8,193): the full layer alone, 205,520,896 */
    s.context = 8193;
    assert_true(compute(&s).prefix_saved_bytes == 205520896.0);
    /* a prefix of 9,000 tokens at C 8,500: full 49 x 9,000 x 4,096 = 1,806,336,000; the chunk
     * [8,192, 8,500) holds 308 prefix tokens: 49 x 308 x 12,288 = 185,450,496; total
     * 1,991,786,496 */
    s.prefix_tokens = 9000;
    s.context = 8500;
    assert_true(compute(&s).prefix_saved_bytes == 1991786496.0);
}

/* Exactly one request's worth of free memory fits exactly one request; a byte less fits
 * none; zero free memory is "no room". */
static void exact_fit_boundaries(void **state)
{
    (void)state;
    kv_spec s = defaults();
    s.params_b = 0;
    s.overhead_gib = 2;
    /* 224 MiB = 0.21875 GiB, so 2.21875 GiB leaves exactly 234,881,024 B */
    s.gpu_mem_gib = 2.21875;
    kv_result r = compute(&s);
    assert_true(r.free_kv_bytes == 234881024.0);
    assert_true(r.fits);
    assert_true(r.max_concurrency == 1.0);

    /* overhead one byte larger: 234,881,023 B free -> room, but not one request: fits is
     * false (the lesson still prints its table, with ~0) */
    s.overhead_gib = 2 + 1.0 / KV_GIB;
    r = compute(&s);
    assert_true(r.free_kv_bytes == 234881023.0);
    assert_true(r.room);
    assert_false(r.fits);
    assert_true(r.max_concurrency == 0.0);

    /* overhead == GPU: free is 0 -> no room */
    s.overhead_gib = s.gpu_mem_gib;
    r = compute(&s);
    assert_true(r.free_kv_bytes == 0.0);
    assert_false(r.room);
    assert_false(r.fits);
    assert_true(r.max_concurrency == 0.0);
    kv_table t;
    kv_table_compute(&s, &r, &t);
    assert_true(t.rows[0].max_concurrency == 0.0);
}

/* The lesson's no-room case: 70B at fp16 on 80 GiB. */
static void no_room(void **state)
{
    (void)state;
    kv_spec s = defaults();
    s.params_b = 70;
    s.gpu_mem_gib = 80;
    kv_result r = compute(&s);
    /* 80 x 2^30 - 1.4e11 - 2^31 = 85,899,345,920 - 140,000,000,000 - 2,147,483,648 */
    assert_true(r.free_kv_bytes == -56248137728.0);
    assert_false(r.fits);
    assert_true(r.max_concurrency == 0.0);
    assert_true(r.prefix_extra_concurrency == 0.0);
}

/* Python multiplies integers exactly and rounds once. With layers 139,812,773, kv_heads
 * 170,021,565 and head_dim 57, 2 x L x H = 47,542,372,944,899,490 already exceeds 2^53, and
 * the exact product 2 x L x H x D = 2,709,915,257,859,270,930 lies between the doubles
 * ...270,656 and ...271,168 (spacing 512 above 2^61): 930 - 656 = 274 > 256, so it rounds
 * up to 2,709,915,257,859,271,168. Multiplying in doubles rounds twice and gives ...270,656. */
static void exact_product_rounds_once(void **state)
{
    (void)state;
    const uint64_t f[4] = {2, 139812773, 170021565, 57};
    assert_true(kv_exact_product(f, 4) == 2709915257859271168.0);
    double naive = ((2.0 * 139812773.0) * 170021565.0) * 57.0;
    assert_true(naive == 2709915257859270656.0); /* the trap this avoids */

    kv_spec s = defaults();
    s.layers = 139812773;
    s.kv_heads = 170021565;
    s.head_dim = 57;
    kv_result r = compute(&s);
    assert_true(r.kv_bytes_per_token == 2709915257859271168.0 * 2);
}

static void exact_product_ties_and_limits(void **state)
{
    (void)state;
    /* 2 x (2^53 + 3) = 2^54 + 6: between 2^54 + 4 and 2^54 + 8 (spacing 4), a tie, to even:
     * (2^54 + 8) / 4 = 2^52 + 2 is even */
    const uint64_t tie[2] = {2, (UINT64_C(1) << 53) + 3};
    assert_true(kv_exact_product(tie, 2) == ldexp(1, 54) + 8);
    /* 2 x (2^63 - 1)^3 = 2^190 - 3 x 2^128 x (1 - ...) + ...: the distance to 2^190 is far
     * below half the spacing 2^137 there, so the result is 2^190 exactly */
    const uint64_t big[4] = {2, INT64_MAX, INT64_MAX, INT64_MAX};
    assert_true(kv_exact_product(big, 4) == ldexp(1, 190));
    /* small products are exact */
    const uint64_t small[4] = {2, 28, 4, 128};
    assert_true(kv_exact_product(small, 4) == 28672.0);
    const uint64_t zero[2] = {0, 12345};
    assert_true(kv_exact_product(zero, 2) == 0.0);
}

/* Python's 1.0 // 0.1 is 9.0, although floor(1.0 / 0.1) is 10: 0.1 is slightly more than
 * a tenth, so fewer than ten fit. */
static void floordiv_is_pythons(void **state)
{
    (void)state;
    assert_true(kv_floordiv(1.0, 0.1) == 9.0);
    assert_true(floor(1.0 / 0.1) == 10.0);
    assert_true(kv_floordiv(7.0, 2.0) == 3.0);
    assert_true(kv_floordiv(6.0, 2.0) == 3.0);
    assert_true(kv_floordiv(-7.0, 2.0) == -4.0);
    assert_true(kv_floordiv(0.0, 5.0) == 0.0);
}

/* The fast paths of exact.c (a double quotient settled by one product; a product of
 * factors below 2^32 with no overflow check) against integer arithmetic: random whole
 * numbers of every size below 2^53, quotients next to an integer (k y - 1, k y, k y + 1),
 * and products on either side of 2^64. */
static void floordiv_and_product_exact(void **state)
{
    (void)state;
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < 300000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        int64_t b = (int64_t)((x >> 11) >> (x % 53)) + 1;
        uint64_t r = x * 0x2545f4914f6cdd1dull;
        int64_t a = (int64_t)((r >> 11) >> (r % 53));
        if (i % 4 == 1 && b < (1LL << 26)) /* next to a multiple of b */
            a = (a >> 27) * b + (int64_t)(r % 3) - 1;
        if (a < 0 || a >= (1LL << 53))
            continue;
        double got = kv_floordiv((double)a, (double)b);
        if (a / b == 0)
            assert_true(got == 0.0 && !signbit(got));
        else if (got != (double)(a / b))
            fail_msg("%lld // %lld: %.17g, want %lld", (long long)a, (long long)b, got,
                     (long long)(a / b));
    }
    /* products: below 2^64 exact; 2^32 x 2^32 = 2^64 and above must not wrap */
    const uint64_t fit[2] = {4294967295u, 4294967297u}; /* 2^64 - 1, rounded once */
    assert_true(kv_exact_product(fit, 2) == ldexp(1, 64));
    const uint64_t wrap[2] = {4294967296u, 4294967296u};
    assert_true(kv_exact_product(wrap, 2) == ldexp(1, 64));
    const uint64_t wide[3] = {1ull << 40, 3, 1ull << 30}; /* 3 x 2^70 */
    assert_true(kv_exact_product(wide, 3) == 3 * ldexp(1, 70));
    const uint64_t under[3] = {1ull << 31, 1ull << 31, 3}; /* 3 x 2^62: fits */
    assert_true(kv_exact_product(under, 3) == 3 * ldexp(1, 62));
}

/* Huge but valid values compute without overflow: 2e9 layers at 2e9 tokens. */
static void huge_values(void **state)
{
    (void)state;
    kv_spec s = defaults();
    s.layers = 2000000000;
    s.context = 2000000000;
    kv_result r = compute(&s);
    /* 2 x 2e9 x 4 x 128 x 2 = 4.096e12 B per token; x 2e9 = 8.192e21 B per request */
    assert_true(r.kv_bytes_per_token == 4096000000000.0);
    assert_true(r.kv_bytes_per_request == 8.192e21);
    assert_true(r.max_concurrency == 0.0);
    assert_true(r.room);
    assert_false(r.fits);
}

static void rejects_bad_specs(void **state)
{
    (void)state;
    kv_result r;
    kv_spec s;
#define EXPECT(field, value, status)                                                       \
    do {                                                                                   \
        s = defaults();                                                                    \
        s.field = value;                                                                   \
        assert_int_equal(kv_compute(&s, &r), status);                                      \
    } while (0)
    EXPECT(layers, 0, KV_ERR_LAYERS);
    EXPECT(kv_heads, -1, KV_ERR_KV_HEADS);
    EXPECT(head_dim, 0, KV_ERR_HEAD_DIM);
    EXPECT(dtype, KV_DTYPE_COUNT, KV_ERR_DTYPE);
    EXPECT(params_b, -0.5, KV_ERR_PARAMS_B);
    EXPECT(params_b, NAN, KV_ERR_PARAMS_B);
    EXPECT(params_b, 1e300, KV_ERR_PARAMS_B); /* 1e300 x 1e9 x 2 overflows to inf */
    EXPECT(weight_dtype, (kv_dtype)99, KV_ERR_WEIGHT_DTYPE);
    EXPECT(gpu_mem_gib, 0, KV_ERR_GPU_MEM);
    EXPECT(gpu_mem_gib, INFINITY, KV_ERR_GPU_MEM);
    EXPECT(gpu_mem_gib, 1e300, KV_ERR_GPU_MEM); /* x 2^30 overflows */
    EXPECT(overhead_gib, -1, KV_ERR_OVERHEAD);
    EXPECT(context, 0, KV_ERR_CONTEXT);
    EXPECT(prefix_tokens, -1, KV_ERR_PREFIX_TOKENS);
    EXPECT(prefix_requests, 0, KV_ERR_PREFIX_REQUESTS);
#undef EXPECT
    /* free = 1.5e308 - 0 - 1.5e308 ... both finite, the difference too: accepted;
     * 0 - 1.6e299 GiB of weights does overflow: gpu tiny, weights near DBL_MAX */
    s = defaults();
    s.gpu_mem_gib = 1e-9;
    s.params_b = 8e298; /* 8e298 x 1e9 x 2 = 1.6e308: finite */
    s.overhead_gib = 1.6e299; /* x 2^30 = 1.7e308: finite; the sum overflows */
    assert_int_equal(kv_compute(&s, &r), KV_ERR_MEMORY_RANGE);
    assert_string_equal(kv_status_message(KV_ERR_CONTEXT), "must be an integer >= 1");
}

/* fits means one whole request fits, never "there is free memory": with 32.96 GiB free
 * (48 GiB - 7e9 x 2 B - 2 GiB = 35,392,123,904 B) and 57,344 B x 1,000,000 tokens =
 * 57,344,000,000 B per request, there is room but not one request. A garbage-filled result
 * must not leak into any of it. */
static void fits_means_a_whole_request(void **state)
{
    (void)state;
    static kv_result r;
    memset(&r, 0xA5, sizeof r);
    kv_spec s = defaults();
    s.context = 1000000;
    assert_int_equal(kv_compute(&s, &r), KV_OK);
    assert_true(r.free_kv_bytes == 51539607552.0 - 14000000000.0 - 2147483648.0);
    assert_int_equal(r.room, 1);
    assert_true(r.max_concurrency == 0);
    assert_int_equal(r.fits, 0);
    assert_int_equal(r.ideal_fits, 0);
    s.context = 4096; /* 234,881,024 B: floor(35,392,123,904 / 234,881,024) = 150 */
    assert_int_equal(kv_compute(&s, &r), KV_OK);
    assert_true(r.max_concurrency == 150 && r.ideal_max_concurrency == 150);
    assert_int_equal(r.fits, 1);
}

static void dtype_table(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        double bytes;
    } want[] = {{"fp32", 4}, {"fp16", 2}, {"bf16", 2}, {"fp8", 1}, {"int8", 1}, {"int4", 0.5}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        kv_dtype d;
        assert_int_equal(kv_dtype_from_name(want[i].name, &d), 0);
        assert_string_equal(kv_dtype_get(d)->name, want[i].name);
        assert_true(kv_dtype_get(d)->bytes == want[i].bytes);
    }
    kv_dtype d;
    assert_int_equal(kv_dtype_from_name("FP16", &d), -1);
    assert_int_equal(kv_dtype_from_name("fp64", &d), -1);
    assert_int_equal(kv_dtype_from_name("", &d), -1);

    /* the KV dtype scales the cache: fp8 halves fp16's 57,344 B, fp32 doubles it */
    kv_spec s = defaults();
    s.dtype = KV_DTYPE_FP8;
    assert_true(compute(&s).kv_bytes_per_token == 28672.0);
    s.dtype = KV_DTYPE_FP32;
    assert_true(compute(&s).kv_bytes_per_token == 114688.0);
    s.dtype = KV_DTYPE_INT4;
    assert_true(compute(&s).kv_bytes_per_token == 14336.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lesson_numbers),
        cmocka_unit_test(rows_standard_and_custom),
        cmocka_unit_test(drill_context_doubles),
        cmocka_unit_test(drill_no_gqa),
        cmocka_unit_test(drill_int8_weights),
        cmocka_unit_test(prefix_savings),
        cmocka_unit_test(prefix_on_windowed_layers),
        cmocka_unit_test(exact_fit_boundaries),
        cmocka_unit_test(no_room),
        cmocka_unit_test(exact_product_rounds_once),
        cmocka_unit_test(exact_product_ties_and_limits),
        cmocka_unit_test(floordiv_is_pythons),
        cmocka_unit_test(huge_values),
        cmocka_unit_test(rejects_bad_specs),
        cmocka_unit_test(fits_means_a_whole_request),
        cmocka_unit_test(floordiv_and_product_exact),
        cmocka_unit_test(dtype_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
