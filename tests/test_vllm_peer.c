/*
 * test_vllm_peer.c - vLLM's own expectations, ported: tests/v1/core/test_kv_cache_utils.py
 * of vllm-project/vllm @ 002f10e0cfa1373a19a0d2756598a34b700d20e5 (line numbers are that
 * file's). Each case builds the same layers through the public header (kv_spec, the vLLM
 * engine's inputs) and asserts the number vLLM's test asserts. vLLM's helpers:
 * new_kv_cache_spec() is a full-attention layer of block 16, 2 KV heads, head 64, float32:
 * a page of 2 x 16 x 2 x 64 x 4 = 16,384 B (P below).
 *
 * Not ported (they test vLLM's Python structures, not a number kvcalc states): the tensor
 * strides and layouts (LBNHC / BLNHC), HiSparse, the GLM-5 balanced groups, DCP, the
 * hidden-state groups, UniformTypeKVCacheSpecs merging, the multi-worker and PP minimums;
 * the Mamba spec tests need MambaSpec shapes a config gives kvcalc, not free shapes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#define KVCALC_ENGINES
#include "kvcalc.h"

#define PAGE 16384.0 /* new_kv_cache_spec()'s page */
#define GIB 1073741824.0

/* n layers like new_kv_cache_spec(), vLLM at release `version` (0.MINOR.PATCH as MINOR x
 * 100 + PATCH), max_model_len m, the KV memory given (the "Available KV cache memory"). */
static void layers(kv_spec *s, int64_t n, int64_t kv_heads, int64_t head, kv_dtype dtype,
                   int version, int64_t m, double kv_bytes)
{
    kv_spec_defaults(s);
    assert_int_equal(kv_spec_set_engine(s, KV_ENGINE_VLLM), KV_OK);
    s->layers = n;
    s->kv_heads = kv_heads;
    s->head_dim = head;
    s->dtype = dtype;
    s->context = m;
    s->params_b = 0;
    s->vllm.version = version;
    s->vllm.block_size = KV_SOME_INT(16);
    s->vllm.kv_cache_memory_gib = KV_SOME_NUM(kv_bytes / GIB);
}

static kv_result run(const kv_spec *s)
{
    kv_result r;
    assert_int_equal(kv_compute(s, &r), KV_OK);
    return r;
}

/* test_kv_cache_reserves_null_block_for_max_model_len (4056-4078), memory path, and
 * test_check_enough_kv_cache_memory_reserves_null_block (4102-4123): max_model_len 512 needs
 * 32 blocks; P x 32 is refused ("max seq len"), P x 33 accepted (32 usable after the null
 * block). Before 0.28 (vllm-project/vllm#47272) P x 32 was accepted. */
static void null_block_memory_path(void **state)
{
    (void)state;
    kv_spec s;
    layers(&s, 1, 2, 64, KV_DTYPE_FP32, 2800, 512, PAGE * 32);
    kv_result r = run(&s);
    assert_false(r.vllm.fits);
    assert_int_equal(r.vllm.refusal, KV_VLLM_KV_NEEDED);
    assert_true(r.max_concurrency == 0 && !r.fits);
    assert_true(r.vllm.check_bytes == PAGE * 31);
    layers(&s, 1, 2, 64, KV_DTYPE_FP32, 2800, 512, PAGE * 33);
    r = run(&s);
    assert_true(r.vllm.fits);
    assert_int_equal(r.vllm.num_gpu_blocks, 33);
    /* the concurrency line divides every block, the null block included: 33 / 32 */
    assert_true(r.vllm.max_concurrency == 33.0 / 32.0);
    assert_true(r.max_concurrency == 1 && r.fits);
    layers(&s, 1, 2, 64, KV_DTYPE_FP32, 2700, 512, PAGE * 32);
    r = run(&s);
    assert_true(r.vllm.fits && r.max_concurrency == 1);
}

/* The same test's override path: num_gpu_blocks_override = 32 with P x 1024 of memory is
 * refused; test_check_enough_kv_cache_memory_respects_num_gpu_blocks_override (3719-3739):
 * max_model_len 16384, override 32, memory P x 2 x 1024 (two layers) is refused. */
static void override_is_checked(void **state)
{
    (void)state;
    kv_spec s;
    layers(&s, 1, 2, 64, KV_DTYPE_FP32, 2800, 512, PAGE * 1024);
    s.vllm.num_gpu_blocks_override = KV_SOME_INT(32);
    kv_result r = run(&s);
    assert_false(r.vllm.fits);
    assert_int_equal(r.vllm.num_gpu_blocks, 32);
    layers(&s, 2, 2, 64, KV_DTYPE_FP32, 2800, 16384, PAGE * 2 * 1024);
    s.vllm.num_gpu_blocks_override = KV_SOME_INT(32);
    r = run(&s);
    assert_false(r.vllm.fits);
    /* the longest length the override's 31 usable blocks hold: 31 x 16 (the estimate the
     * error message names), not the 16,384 the memory alone would allow */
    assert_int_equal(r.vllm.max_model_len_fit, 31 * 16);
    /* before the check knew the override (0.20) vLLM started and the request never ran:
     * kvcalc says it starts (vllm_fits) and that no whole request is served */
    s.vllm.version = 2000;
    r = run(&s);
    assert_true(r.vllm.fits);
    assert_true(r.vllm.max_concurrency < 1);
    assert_true(r.max_concurrency == 0 && !r.fits);
}

/* test_estimate_max_model_len (1715-1756): 32 layers of FullAttentionSpec(16, 32 KV heads,
 * head 128, float16) in 8 GiB: 16,384 tokens x 32 x 2 x 32 x 128 x 2 B = exactly 8 GiB, so
 * max_model_len 16385 estimates 16384 and 16383 stays 16383. vLLM's public function does
 * not keep the null block back; its start-up check does (from 0.28): 1,023 of the 1,024
 * blocks, 16,368 tokens, in the message kvcalc reproduces. */
static void estimate_max_model_len(void **state)
{
    (void)state;
    kv_spec s;
    layers(&s, 32, 32, 128, KV_DTYPE_FP16, 2700, 16385, 8 * GIB);
    kv_result r = run(&s);
    assert_false(r.vllm.fits);
    assert_int_equal(r.vllm.max_model_len_fit, 16384);
    layers(&s, 32, 32, 128, KV_DTYPE_FP16, 2700, 16383, 8 * GIB);
    r = run(&s);
    assert_true(r.vllm.fits);
    layers(&s, 32, 32, 128, KV_DTYPE_FP16, 2800, 16385, 8 * GIB);
    r = run(&s);
    assert_int_equal(r.vllm.max_model_len_fit, 1023 * 16);
}

/* _check_enough_kv_cache_memory: "No available memory for the cache blocks" when what the
 * check plans against is 0 or less - from 0.28 a pool of one block (the null block) too. */
static void no_available_memory(void **state)
{
    (void)state;
    kv_spec s;
    layers(&s, 1, 2, 64, KV_DTYPE_FP32, 2800, 512, PAGE);
    kv_result r = run(&s);
    assert_int_equal(r.vllm.refusal, KV_VLLM_NO_MEMORY);
    layers(&s, 1, 2, 64, KV_DTYPE_FP32, 2700, 512, 0);
    r = run(&s);
    assert_int_equal(r.vllm.refusal, KV_VLLM_NO_MEMORY);
    /* weights past the budget: 5e9 bf16 parameters (9.31 GiB) on a 10 GiB GPU at 0.9 leave
     * 9 - 9.31 < 0 (kvcalc's old answer was the "To serve at least one request ..." message
     * with a negative size, which vLLM never prints) */
    layers(&s, 1, 2, 64, KV_DTYPE_FP32, 2700, 512, 0);
    s.vllm.kv_cache_memory_gib = KV_NONE_NUM;
    s.params_b = 5;
    s.weight_dtype = KV_DTYPE_BF16;
    s.gpu_mem_gib = 10;
    r = run(&s);
    assert_true(r.vllm.available_bytes < 0);
    assert_int_equal(r.vllm.refusal, KV_VLLM_NO_MEMORY);
    assert_true(r.max_concurrency == 0);
    /* weights past the GPU itself (16 GB on 10 GiB) never load: torch runs out of memory
     * first (not a vLLM message); so does a cache of a size given beside the weights */
    s.params_b = 8;
    r = run(&s);
    assert_int_equal(r.vllm.refusal, KV_VLLM_OUT_OF_MEMORY);
    assert_true(r.max_concurrency == 0 && !r.vllm.fits);
    s.params_b = 2; /* 3.73 GiB + 7 GiB of KV > 10 */
    s.vllm.kv_cache_memory_gib = KV_SOME_NUM(7);
    r = run(&s);
    assert_int_equal(r.vllm.refusal, KV_VLLM_OUT_OF_MEMORY);
    s.vllm.kv_cache_memory_gib = KV_SOME_NUM(5); /* 3.73 + 5 fits */
    r = run(&s);
    assert_true(r.vllm.fits);
    /* a GPU no one named (the lesson's 48 GiB) holds nothing back: a log's KV figure */
    s.vllm.kv_cache_memory_gib = KV_SOME_NUM(7);
    s.vllm.total_assumed = 1;
    r = run(&s);
    assert_true(r.vllm.fits);
}

/* test_get_kv_cache_config_one_worker (1972-2360), its full-attention rows: two layers of
 * P, memory P x 2 x 32 -> 32 blocks; num_gpu_blocks_override 16 -> 16; and
 * test_get_max_concurrency_for_kv_cache_config (1759-1898): blocks / blocks per request. */
static void blocks_and_concurrency(void **state)
{
    (void)state;
    kv_spec s;
    layers(&s, 2, 2, 64, KV_DTYPE_FP32, 2800, 16, PAGE * 2 * 32);
    kv_result r = run(&s);
    assert_int_equal(r.vllm.num_gpu_blocks, 32);
    assert_int_equal(r.vllm.page_bytes, PAGE);
    assert_true(r.vllm.max_concurrency == 32.0);
    s.vllm.num_gpu_blocks_override = KV_SOME_INT(16);
    r = run(&s);
    assert_int_equal(r.vllm.num_gpu_blocks, 16);
    /* max_model_len 1024 = 64 blocks per request of a 100-block pool: 1.5625 */
    layers(&s, 1, 2, 64, KV_DTYPE_FP32, 2800, 1024, PAGE * 100);
    r = run(&s);
    assert_true(r.vllm.max_concurrency == 100.0 / 64.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(null_block_memory_path), cmocka_unit_test(override_is_checked),
        cmocka_unit_test(estimate_max_model_len), cmocka_unit_test(no_available_memory),
        cmocka_unit_test(blocks_and_concurrency),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
