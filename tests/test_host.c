/*
 * test_host.c - host memory (issue 20): what each engine keeps on the host (host_bytes) and
 * --host-mem-gib, the check that the host holds it. The figures are the engines' own, each
 * worked out by hand in the engine's test (test_vllm.c cpu_offload, test_sglang.c
 * hierarchical_cache, test_llamacpp.c -nkvo); here they are checked as one key, and the
 * answer that follows from a host too small: the engine cannot allocate its host part, so it
 * holds no request.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "run.h"

#define GIB 1073741824.0
#define GET(key, ...) run_get(key, (const char *const[]){__VA_ARGS__, NULL})

/* vLLM: --cpu-offload-gb 10 at TP 2 pins 10 GiB on each GPU's behalf: 20 GiB =
 * 21,474,836,480 B on the host (Llama-3.1-70B's 80 decoder layers hold far more than 10 GiB
 * a GPU, so all of it moves). A host of exactly that holds it; 0.01 GiB less does not. */
static void vllm_pinned_offload(void **state)
{
    (void)state;
#define V "--engine", "vllm", "--model", "llama-3.1-70b-instruct", "--gpu", "h100", "--tp", "2", \
          "--cpu-offload-gb", "10", "--max-model-len", "8192"
    assert_true(GET("host_bytes", V) == 20 * GIB);
    assert_true(GET("host_bytes", V) == GET("vllm_host_pinned_bytes", V));
    double plain = GET("max_concurrency", V);
    assert_true(plain >= 1);
    assert_true(GET("max_concurrency", V, "--host-mem-gib", "20") == plain);
    EXPECT_STDOUT("false\n", V, "--host-mem-gib", "20", "--get", "host_short");
    assert_true(GET("max_concurrency", V, "--host-mem-gib", "19.99") == 0);
    EXPECT_STDOUT("true\n", V, "--host-mem-gib", "19.99", "--get", "host_short");
    EXPECT_STDOUT("false\n", V, "--host-mem-gib", "19.99", "--get", "fits");
    /* the pinned part does not shrink with the context: no context fits */
    assert_true(GET("longest_context_fit", V, "--host-mem-gib", "19.99") == 0);
    run_result r;
    run_kvcalc((const char *const[]){V, "--host-mem-gib", "19.99", NULL}, &r);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\nHost memory: vLLM keeps 20.00 GiB in host memory, more than "
                                  "the 19.99 GiB given (--host-mem-gib):\n  it cannot allocate "
                                  "them, so it does not start, at any context.\n"));
    assert_non_null(strstr(r.out, "Max concurrent requests @ 8,192 context:  ~0  (by vLLM's"));
    assert_non_null(strstr(r.out, "\n(vLLM stops before the lines below: the host holds less "
                                  "than it keeps there; see Host memory above.)\n"));
    /* every row of the table is sized with the host too */
    assert_non_null(strstr(r.out, "    32,768   5,120.0 MiB               0\n"));
    run_free(&r);
    run_kvcalc((const char *const[]){V, "--host-mem-gib", "64", NULL}, &r);
    assert_non_null(strstr(r.out, "\nHost memory: vLLM keeps 20.00 GiB in host memory, of the "
                                  "64.00 GiB given (--host-mem-gib).\n"));
    run_free(&r);
    run_kvcalc((const char *const[]){V, "--format", "json", NULL}, &r);
    assert_non_null(strstr(r.out, "\n  \"host_bytes\": 21474836480,\n  \"host_short\": false,\n"));
    assert_non_null(strstr(r.out, "\"host_mem_gib\": null,"));
    run_free(&r);
    /* --require on it, as on any key */
    run_kvcalc((const char *const[]){V, "--require", "host_bytes<=16000000000", NULL}, &r);
    assert_int_equal(r.status, 1);
    run_free(&r);
#undef V
}

/* vLLM V0's swap space, pinned on every worker: Qwen3-8B at TP 2 keeps 2 x 36 x 4 x 128 x
 * 2 B = 73,728 B a token on each GPU, 16-token blocks of 1,179,648 B; 4 GiB // that = 3,640
 * CPU blocks, x 2 GPUs = 8,587,837,440 B on the host. V1 has no swap space. */
static void vllm_v0_swap(void **state)
{
    (void)state;
#define V0 "--engine", "vllm", "--model", "qwen3-8b", "--gpu", "h100", "--tp", "2", \
           "--vllm-version", "0.8", "--vllm-use-v1", "0"
    assert_true(GET("vllm_num_cpu_blocks", V0) == 3640);
    assert_true(GET("host_bytes", V0) == 8587837440.0);
    assert_true(GET("host_bytes", V0, "--swap-space", "0") == 0);
    assert_true(GET("host_bytes", "--engine", "vllm", "--model", "qwen3-8b", "--gpu", "h100",
                    "--vllm-version", "0.8") == 0);
    EXPECT_STDOUT("true\n", V0, "--host-mem-gib", "7.99", "--get", "host_short");
#undef V0
}

/* SGLang's HiCache: every rank its own pool; Qwen3-8B at TP 2 on H100s, by hand in
 * test_sglang.c: 2 x 123,580,735,488 = 247,161,470,976 B. */
static void sglang_hicache(void **state)
{
    (void)state;
#define S "--engine", "sglang", "--model", "qwen3-8b", "--gpu", "h100", "--tp", "2", \
          "--enable-hierarchical-cache"
    assert_true(GET("host_bytes", S) == 247161470976.0);
    /* 247,161,470,976 B = 230.19 GiB, and the 10 GiB HiCache leaves free (pool_host/base.py
     * HICACHE_HOST_MEMORY_RESERVE_BYTES): 240.19 GiB */
    EXPECT_STDOUT("true\n", S, "--host-mem-gib", "240", "--get", "host_short");
    assert_true(GET("max_concurrency", S, "--host-mem-gib", "240") == 0);
    EXPECT_STDOUT("false\n", S, "--host-mem-gib", "241", "--get", "host_short");
    assert_true(GET("max_concurrency", S, "--host-mem-gib", "241") == GET("max_concurrency", S));
#undef S
}

/* llama.cpp -nkvo: the whole cache on the host, 4,831,838,208 B for Qwen3-8B at -c 32768
 * (test_llamacpp.c); the weights it leaves on the host are mapped from the file and not in
 * host_bytes. Its n_ctx is -c, not the request's length, so no shorter request fits a host
 * that cannot hold the cache. */
static void llamacpp_host_cache(void **state)
{
    (void)state;
#define L "--engine", "llama.cpp", "--model", "qwen3-8b", "--gpu", "rtx-4090", "-c", "32768"
    assert_true(GET("host_bytes", L, "-nkvo") == 4831838208.0);
    assert_true(GET("host_bytes", L, "-nkvo") == GET("llamacpp_kv_host_bytes", L, "-nkvo"));
    assert_true(GET("host_bytes", L) == 0);
    /* 4,831,838,208 B is 4.5 GiB exactly: a host of that holds it */
    EXPECT_STDOUT("true\n", L, "-nkvo", "--host-mem-gib", "4.49", "--get", "host_short");
    EXPECT_STDOUT("false\n", L, "-nkvo", "--host-mem-gib", "4.5", "--get", "host_short");
    /* -ngl 0 leaves the weights on the host, mapped: not counted */
    assert_true(GET("host_bytes", L, "-ngl", "0") == GET("llamacpp_kv_host_bytes", L, "-ngl", "0"));
#undef L
}

/* An engine that keeps nothing on the host says so when a host is given; none given and
 * nothing kept: no line. Bad values are refused at the flag. */
static void nothing_kept_and_bad_values(void **state)
{
    (void)state;
    run_result r;
    run_kvcalc((const char *const[]){"--engine", "vllm", "--model", "qwen3-8b", "--gpu", "h100",
                                     "--host-mem-gib", "64", NULL}, &r);
    assert_non_null(strstr(r.out, "\nHost memory: vLLM keeps 0.00 GiB in host memory, of the "
                                  "64.00 GiB given (--host-mem-gib).\n"));
    run_free(&r);
    run_kvcalc((const char *const[]){"--engine", "vllm", "--model", "qwen3-8b", "--gpu", "h100",
                                     NULL}, &r);
    assert_null(strstr(r.out, "Host memory"));
    run_free(&r);
    expect_refused((const char *const[]){"--host-mem-gib", "0", NULL}, "--host-mem-gib");
    expect_refused((const char *const[]){"--host-mem-gib", "-5", NULL}, "--host-mem-gib");
    expect_refused((const char *const[]){"--host-mem-gib", "lots", NULL}, "--host-mem-gib");
    /* the lesson's own flags print the lesson's bytes: no host line without the flag */
    run_kvcalc((const char *const[]){NULL}, &r);
    assert_null(strstr(r.out, "Host memory"));
    run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(vllm_pinned_offload),
        cmocka_unit_test(vllm_v0_swap),
        cmocka_unit_test(sglang_hicache),
        cmocka_unit_test(llamacpp_host_cache),
        cmocka_unit_test(nothing_kept_and_bad_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
