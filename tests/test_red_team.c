/*
 * test_red_team.c - the self-contradicting answers a red-team pass found in kvcalc 4 (issue
 * 19), each by its item number, with the test that failed before its fix. All through the
 * real binary, as a user or a CI job runs it.
 */
#define _POSIX_C_SOURCE 200809L /* mkstemp: the tests, not the product */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run.h"

#define RUN(r, ...) run_kvcalc((const char *const[]){__VA_ARGS__, NULL}, r)

/* Exit 2, nothing on stdout, one error line then the hint, and the error starts so. */
static void expect_usage(run_result *r, const char *start)
{
    assert_int_equal(r->status, 2);
    assert_int_equal(r->out_len, 0);
    if (strncmp(r->err, start, strlen(start)) != 0)
        fail_msg("expected \"%s...\", got: %s", start, r->err);
    assert_int_equal(count_lines(r->err), 2);
    assert_non_null(strstr(r->err, "\nTry 'kvcalc --help' for more information.\n"));
}

/* 6. A KV cache of a given size beside weights that outgrow the GPU: 27.4B bf16 parameters
 * are 51.10 GiB, more than a 10 GiB GPU - vLLM never loads them, so it holds 0 requests and
 * fits is false; the text says torch runs out of memory (it said "fits" and 63 requests
 * beside the lesson's "Weights + overhead already exceed GPU memory"). With the GPU the log
 * came from (an MI300X holds 51.10 + 109.86 GiB) the 109.86 GiB start as the log did. */
static void item06_no_fits_beside_no_room(void **state)
{
    (void)state;
    EXPECT_STDOUT("0\n", "--engine", "vllm", "--model", "gemma-3-27b-it", "--max-model-len",
                  "4096", "--kv-cache-memory-gib", "109.86", "--gpu-mem-gib", "10", "--get",
                  "max_concurrency");
    EXPECT_STDOUT("false\n", "--engine", "vllm", "--model", "gemma-3-27b-it", "--max-model-len",
                  "4096", "--kv-cache-memory-gib", "109.86", "--gpu-mem-gib", "10", "--get",
                  "fits");
    run_result r;
    RUN(&r, "--engine", "vllm", "--model", "gemma-3-27b-it", "--max-model-len", "4096",
        "--kv-cache-memory-gib", "109.86", "--gpu-mem-gib", "10");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "Weights + overhead already exceed GPU memory"));
    assert_non_null(strstr(r.out, "torch.OutOfMemoryError: CUDA out of memory.\n  (the weights, "
                                  "51.10 GiB, need more than the GPU's 10.00 GiB: vLLM would "
                                  "not load them.)\n"));
    assert_null(strstr(r.out, "GPU KV cache size"));
    run_free(&r);
    /* weights that fit and a given cache that does not fit beside them: 3.4B on 16 GiB */
    RUN(&r, "--engine", "vllm", "--model", "qwen3-4b-instruct-2507", "--gpu-mem-gib", "16",
        "--kv-cache-memory-gib", "12");
    assert_non_null(strstr(r.out, "and the KV cache of the size given, "));
    run_free(&r);
    EXPECT_STDOUT("50\n", "--engine", "vllm", "--model", "gemma-3-27b-it", "--gpu", "mi300x",
                  "--max-model-len", "4096", "--kv-cache-memory-gib", "109.86", "--get",
                  "max_concurrency");
    /* no GPU named: the lesson's 48 GiB is an illustration, the given cache stands, and the
     * section says the illustration could not hold it */
    RUN(&r, "--engine", "vllm", "--model", "gemma-3-27b-it", "--max-model-len", "4096",
        "--kv-cache-memory-gib", "109.86");
    assert_non_null(strstr(r.out, "(no GPU named: the lesson's 48.00 GiB could not hold the "
                                  "weights and this cache"));
    run_free(&r);
}

/* 7. SGLang's two readings: free memory after the weights loaded cannot exceed what was free
 * before ("mem usage=-99.00 GB" and 456 requests were printed). Equal readings (weights of 0
 * bytes) stay accepted. */
static void item07_sglang_readings_in_order(void **state)
{
    (void)state;
    run_result r;
    RUN(&r, "--engine", "sglang", "--avail-mem-before-load-gib", "1",
        "--avail-mem-after-load-gib", "100");
    expect_usage(&r, "kvcalc: --avail-mem-after-load-gib: 100 GiB is more than was free before "
                     "the weights loaded (--avail-mem-before-load-gib 1)");
    run_free(&r);
    RUN(&r, "--engine", "sglang", "--avail-mem-before-load-gib", "40",
        "--avail-mem-after-load-gib", "40", "--params-b", "0.001");
    assert_int_equal(r.status, 0);
    run_free(&r);
}

/* 9. An unknown quantization_config.quant_method is not sized as int4 from its "bits" (it
 * was: Qwen3-8B as "hqq4" with bits 4 came out 5.55 GiB and 71 requests): the weights are
 * refused with the method named, until --params-b and --weight-dtype say. Known methods keep
 * their sizes: AWQ's 4 bits. */
static void item09_unknown_quant_method_refused(void **state)
{
    (void)state;
    char path[] = "/tmp/kvcalc-red-XXXXXX";
    write_temp(path, "{\"num_hidden_layers\": 4, \"num_attention_heads\": 4, \"hidden_size\": "
                     "256, \"vocab_size\": 1000, \"intermediate_size\": 512, "
                     "\"quantization_config\": {\"quant_method\": \"hqq4\", \"bits\": 4}}");
    run_result r;
    RUN(&r, "--config", path);
    expect_usage(&r, "kvcalc: ");
    assert_non_null(strstr(r.err, "(quantization_config.quant_method 'hqq4' is unknown): give "
                                  "--params-b (billions of parameters) and --weight-dtype"));
    run_free(&r);
    EXPECT_STDOUT("200000000\n", "--config", path, "--params-b", "0.1", "--weight-dtype", "bf16",
                  "--get", "weights_bytes");
    unlink(path);
    char awq[] = "/tmp/kvcalc-red-XXXXXX";
    write_temp(awq, "{\"num_hidden_layers\": 4, \"num_attention_heads\": 4, \"hidden_size\": "
                    "256, \"vocab_size\": 1000, \"intermediate_size\": 512, "
                    "\"quantization_config\": {\"quant_method\": \"awq\", \"bits\": 4}}");
    RUN(&r, "--config", awq, "--get", "weight_dtype_bytes");
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "0.5\n");
    run_free(&r);
    unlink(awq);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(item06_no_fits_beside_no_room),
        cmocka_unit_test(item07_sglang_readings_in_order),
        cmocka_unit_test(item09_unknown_quant_method_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
