/*
 * test_models.c - models and GPUs through the real binary: every preset equals its
 * config.json, names are matched as documented, GPU presets carry the driver's memory,
 * explicit flags win, bad files fail cleanly with a located message.
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

#include "run.h"

#define RUN(r, ...) run_kvcalc((const char *const[]){__VA_ARGS__, NULL}, r)

/* The JSON output without the two lines that name where the model came from. */
static char *without_labels(const char *json)
{
    char *copy = malloc(strlen(json) + 1);
    assert_non_null(copy);
    char *out = copy;
    for (const char *line = json; *line;) {
        const char *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line + 1) : strlen(line);
        if (strncmp(line, "  \"model\":", 10) != 0 && strncmp(line, "  \"source\":", 11) != 0) {
            memcpy(out, line, len);
            out += len;
        }
        line += len;
    }
    *out = '\0';
    return copy;
}

/* Every line of data/models/INDEX.tsv: --model ID, --model ALIAS and --config FILE give the
 * same result (JSON, labels aside) at two contexts. */
static void every_preset_equals_its_config(void **state)
{
    (void)state;
    char *index = read_file(KVCALC_SOURCE_DIR "/data/models/INDEX.tsv", NULL);
    assert_non_null(index);
    int checked = 0;
    for (char *line = strtok(index, "\n"); line; line = strtok(NULL, "\n")) {
        if (line[0] == '#')
            continue;
        char id[200], alias[200], file[300], path[600];
        assert_int_equal(sscanf(line, "%199[^\t]\t%199[^\t]\t%299s", id, alias, file), 3);
        snprintf(path, sizeof path, "%s/data/models/%s", KVCALC_SOURCE_DIR, file);
        static const char *const contexts[] = {"1000", "100000"};
        for (size_t c = 0; c < 2; c++) {
            run_result a, b, d;
            RUN(&a, "--model", id, "--context", contexts[c], "--format", "json");
            RUN(&b, "--config", path, "--context", contexts[c], "--format", "json");
            RUN(&d, "--model", alias, "--context", contexts[c], "--format", "json");
            assert_int_equal(a.status, 0);
            assert_int_equal(b.status, 0);
            char *x = without_labels(a.out), *y = without_labels(b.out);
            if (strcmp(x, y) != 0)
                fail_msg("--model %s differs from --config %s", id, file);
            assert_string_equal(a.out, d.out);
            assert_non_null(strstr(a.out, "\"source\": \"built-in preset\""));
            free(x);
            free(y);
            run_free(&a);
            run_free(&b);
            run_free(&d);
        }
        checked++;
    }
    free(index);
    assert_int_equal(checked, 37);
}

static void model_names(void **state)
{
    (void)state;
    run_result r;
    /* 2 x 36 x 8 x 128 x 2 */
    EXPECT_STDOUT("147456\n", "--model", "QWEN/qwen3-8B", "--get", "kv_bytes_per_token");
    EXPECT_STDOUT("meta-llama/Llama-3.1-8B\n", "--model", "Llama-3.1-8B", "--get", "model");
    RUN(&r, "--model", "llama-3.1-9b");
    assert_int_equal(r.status, 2);
    assert_int_equal(r.out_len, 0);
    assert_string_equal(r.err, "kvcalc: --model: unknown model 'llama-3.1-9b'; did you mean "
                               "'llama-3.1-8b'? (see kvcalc --list-models)\nTry 'kvcalc --help' for more information.\n");
    run_free(&r);
    RUN(&r, "--model", "no-such-model-at-all"); /* nothing close: no suggestion */
    assert_int_equal(r.status, 2);
    assert_string_equal(r.err, "kvcalc: --model: unknown model 'no-such-model-at-all' (see "
                               "kvcalc --list-models)\nTry 'kvcalc --help' for more information.\n");
    run_free(&r);
    RUN(&r, "--list-models");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "deepseek-ai/DeepSeek-V3"));
    assert_non_null(strstr(r.out, "61 MLA layers, latent 576"));
    assert_non_null(strstr(r.out, "62 layers: 10 full + 52 sliding(1024)"));
    assert_int_equal(count_lines(r.out), 1 + 37 + 3); /* header, models, footnote */
    /* KV B/token counts every attention layer: gemma-3-27b-it's 62 layers (10 full + 52
     * sliding) x 2 x 16 KV heads x 128 x 2 B = 507,904 B, not the 81,920 B of the full ones */
    assert_non_null(strstr(r.out, "      507,904  62 layers: 10 full + 52 sliding(1024)"));
    run_free(&r);
}

static void gpu_presets(void **state)
{
    (void)state;
    run_result r;
    /* the driver reports 81,559 MiB for an "80 GB" H100: 81,559 x 2^20 = 85,520,809,984 B */
    EXPECT_STDOUT("85520809984\n", "--gpu", "h100", "--get", "gpu_mem_bytes");
    EXPECT_STDOUT("H100 80GB\n", "--gpu", "H100-80GB", "--get", "gpu");
    /* L40S: 46,068 MiB x 1,048,576 = 46,068,000,000 + 46,068 x 48,576 (2,237,799,168)
     * = 48,305,799,168 B */
    EXPECT_STDOUT("48305799168\n", "--gpu", "l40s", "--get", "gpu_mem_bytes");
    /* an explicit --gpu-mem-gib wins, and the GPU label goes */
    RUN(&r, "--gpu", "h100", "--gpu-mem-gib", "80", "--format", "json");
    assert_non_null(strstr(r.out, "\"gpu_mem_bytes\": 85899345920,"));
    assert_non_null(strstr(r.out, "\"gpu\": null,"));
    run_free(&r);
    RUN(&r, "--gpu", "h100", "--model", "qwen3-8b");
    assert_non_null(strstr(r.out, "GPU memory : 79.6475 GiB (H100 80GB)   (reserve 2 GiB"));
    run_free(&r);
    RUN(&r, "--gpu", "h1000");
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "kvcalc: --gpu: unknown GPU 'h1000' (expected one of: T4, "));
    run_free(&r);
    RUN(&r, "--list-gpus");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "H100 80GB                    81,559      79.65"));
    run_free(&r);
}

static void explicit_flags_win(void **state)
{
    (void)state;
    run_result r;
    /* 2 x 36 x 4 x 128 x 2 = 73,728 */
    EXPECT_STDOUT("73728\n",
                  "--model", "qwen3-8b", "--kv-heads", "4", "--get", "kv_bytes_per_token");
    /* flags before the model count too */
    EXPECT_STDOUT("73728\n",
                  "--kv-heads", "4", "--model", "qwen3-8b", "--get", "kv_bytes_per_token");
    RUN(&r, "--model", "qwen3-8b", "--params-b", "8", "--format", "json");
    assert_non_null(strstr(r.out, "\"params\": 8000000000,"));
    assert_non_null(strstr(r.out, "\"params_estimated\": false,"));
    run_free(&r);
    /* 2 x 36 x 8 x 128 x 1 */
    EXPECT_STDOUT("73728\n",
                  "--model", "qwen3-8b", "--dtype", "fp8", "--get", "kv_bytes_per_token");
    /* the last model flag wins */
    EXPECT_STDOUT("131072\n",
                  "--model", "qwen3-8b", "--model", "llama-3.1-8b", "--get", "kv_bytes_per_token");
}

/* A plain GQA model keeps the lesson's table: Qwen2.5-7B at fp16 with --params-b 7 is the
 * lesson's default model, so everything below the banner is the lesson's golden output. */
static void plain_model_keeps_the_lesson_table(void **state)
{
    (void)state;
    run_result r;
    RUN(&r, "--model", "qwen2.5-7b-instruct", "--dtype", "fp16", "--weight-dtype", "fp16",
        "--params-b", "7");
    char *golden = read_file(KVCALC_SOURCE_DIR "/tests/golden/default.out", NULL);
    assert_non_null(golden);
    const char *a = strstr(r.out, "\nModel      :"), *b = strstr(golden, "\nModel      :");
    assert_non_null(a);
    assert_non_null(b);
    assert_string_equal(a, b);
    const char *banner = "\nKV cache calculator  (Qwen/Qwen2.5-7B-Instruct; from built-in preset)\n"
                         "---------------------------------------------------------------------\n";
    assert_memory_equal(r.out, banner, strlen(banner));
    free(golden);
    run_free(&r);
}

static void text_shows_the_layout(void **state)
{
    (void)state;
    run_result r;
    RUN(&r, "--model", "deepseek-v3", "--gpu-mem-gib", "1500");
    assert_non_null(strstr(r.out, "Model      : 61 MLA layers, latent 576, KV dtype bf16 (2 B)"));
    /* 61 x 576 x 2 = 70,272 B */
    assert_non_null(strstr(r.out, "KV per token (one sequence):  61 x 576 x 2 B  =  70,272 B"));
    run_free(&r);
    RUN(&r, "--model", "gemma-2-9b-it");
    assert_non_null(strstr(r.out, "42 layers: 21 full + 21 sliding(4096)"));
    /* 2 x 21 x 8 x 256 x 2 = 172,032 B per token in each group */
    assert_non_null(strstr(r.out, "  + 21 sliding layers:  2 x 21 x 8 x 256 x 2 B  =  172,032 B "
                                  "per token, for at most 4,096 tokens"));
    run_free(&r);
    RUN(&r, "--model", "llama-2-7b-hf", "--context", "8192");
    assert_non_null(strstr(r.out, "(beyond the model's max_position_embeddings of 4,096 tokens)"));
    run_free(&r);
    RUN(&r, "--config", KVCALC_SOURCE_DIR "/tests/fixtures/variants/hybrid-unknown-state.json");
    assert_non_null(strstr(r.out, "  + 6 state layers: state size not in the config, counted as 0"));
    run_free(&r);
}

/* Llama-3.1-70B on 4 H100s: 8 KV heads / 4 = 2 per GPU. Per token 2 x 80 x 2 x 128 x 2 =
 * 81,920 B per GPU; per 4,096-token request 335,544,320 B = 320.0 MiB per GPU, x 4 =
 * 1,280.0 MiB for the group; weights 70,553,706,496 x 2 = 141,107,412,992 B in all, / 4 =
 * 35,276,853,248 B (32.85 GiB) per GPU. */
static void tensor_parallel_per_gpu(void **state)
{
    (void)state;
    run_result r;
    RUN(&r, "--model", "llama-3.1-70b", "--tp", "4", "--gpu", "h100");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "Tensor par.: 4 GPUs per replica; figures below are per GPU (2 "
                                  "of 8 KV heads each, 1/4 of the weights)\n"));
    assert_non_null(strstr(r.out, "->  32.85 GiB"));
    assert_non_null(strstr(r.out, "KV per token (one sequence):  2 x 80 x 2 x 128 x 2 B  =  "
                                  "81,920 B"));
    assert_non_null(strstr(r.out, "KV per request @ 4,096 tokens:  320.0 MiB per GPU (1,280.0 MiB "
                                  "across the 4 GPUs)\n"));
    run_free(&r);
    RUN(&r, "--model", "llama-3.1-70b", "--tp", "4", "--gpu", "h100", "--format", "json");
    assert_non_null(strstr(r.out, "\"kv_bytes_per_request_group\": 1342177280,"));
    assert_non_null(strstr(r.out, "\"weights_bytes_group\": 141107412992,"));
    assert_non_null(strstr(r.out, "\"weights_bytes\": 35276853248,"));
    assert_non_null(strstr(r.out, "\"kv_heads_per_gpu\": 2,"));
    run_free(&r);
}

static void config_from_stdin(void **state)
{
    (void)state;
    run_result r;
    run_kvcalc_io((const char *const[]){"--config", "-", "--get", "kv_bytes_per_token", NULL},
                  KVCALC_SOURCE_DIR "/data/models/meta-llama__Llama-3.1-70B.json", NULL, &r);
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "327680\n"); /* 2 x 80 x 8 x 128 x 2 */
    run_free(&r);
}

static void bad_files(void **state)
{
    (void)state;
    run_result r;
    RUN(&r, "--config", "/nonexistent/config.json");
    assert_int_equal(r.status, 2);
    assert_int_equal(r.out_len, 0);
    assert_memory_equal(r.err, "kvcalc: /nonexistent/config.json: cannot open: ", 47);
    assert_int_equal(count_lines(r.err), 2);
    run_free(&r);

    /* a 100 MB file is refused after 8 MiB (sparse: it costs no disk) */
    char big[] = "/tmp/kvcalc-big-XXXXXX";
    int fd = mkstemp(big);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, 100 * 1000 * 1000), 0);
    close(fd);
    RUN(&r, "--config", big);
    assert_int_equal(r.status, 2);
    assert_int_equal(r.out_len, 0);
    assert_non_null(strstr(r.err, ": file too large (over 8 MiB)\n"));
    run_free(&r);
    unlink(big);

    /* 100,000 nested arrays: refused at the depth limit (32), located */
    char deep[] = "/tmp/kvcalc-deep-XXXXXX";
    fd = mkstemp(deep);
    assert_true(fd >= 0);
    for (int i = 0; i < 100000; i++)
        assert_int_equal(write(fd, "[", 1), 1);
    close(fd);
    RUN(&r, "--config", deep);
    assert_int_equal(r.status, 2);
    assert_int_equal(r.out_len, 0);
    assert_non_null(strstr(r.err, ":1:33: nesting too deep\n"));
    run_free(&r);
    unlink(deep);

    /* truncated JSON: the message names the file, line and column */
    char cut[] = "/tmp/kvcalc-cut-XXXXXX";
    fd = mkstemp(cut);
    assert_true(fd >= 0);
    const char text[] = "{\n  \"num_hidden_layers\": 32,\n  \"num_attention_heads\": ";
    assert_int_equal(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
    close(fd);
    RUN(&r, "--config", cut);
    assert_int_equal(r.status, 2);
    char want[128];
    snprintf(want, sizeof want, "kvcalc: %s:3:26: unexpected end of input\n", cut);
    assert_memory_equal(r.err, want, strlen(want));
    run_free(&r);
    unlink(cut);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_preset_equals_its_config),
        cmocka_unit_test(model_names),
        cmocka_unit_test(gpu_presets),
        cmocka_unit_test(explicit_flags_win),
        cmocka_unit_test(plain_model_keeps_the_lesson_table),
        cmocka_unit_test(text_shows_the_layout),
        cmocka_unit_test(tensor_parallel_per_gpu),
        cmocka_unit_test(config_from_stdin),
        cmocka_unit_test(bad_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
