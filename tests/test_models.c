/*
 * test_models.c - models and GPUs through the real binary: every preset equals its
 * config.json, names are matched as documented, GPU presets carry the driver's memory
 * and are found by the names nvidia-smi / rocm-smi print, no two GPUs share a name,
 * estimates are flagged, explicit flags win, bad files fail cleanly with a located message.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kvcalc.h"
#include "../src/model/presets.h"
#include "modellist.h"
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
        /* and the "sources" that say preset for one and config for the other */
        int source = (strstr(line, "\": \"preset\"") || strstr(line, "\": \"config\"")) &&
                     (size_t)(strchr(line, '\n') ? strchr(line, '\n') - line : (long)len) < 60;
        if (strncmp(line, "  \"model\":", 10) != 0 && strncmp(line, "  \"source\":", 11) != 0 &&
            !source) {
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
        char id[200], alias[200], file[300], path[600], note[200] = "";
        int fields = sscanf(line, "%199[^\t]\t%199[^\t]\t%299[^\t]\t%199[^\n]", id, alias, file,
                            note);
        assert_true(fields == 3 || fields == 4);
        snprintf(path, sizeof path, "%s/data/models/%s", KVCALC_SOURCE_DIR, file);
        static const char *const contexts[] = {"1000", "100000"};
        /* a preset whose weights its config does not describe (a fourth column) is refused
         * until they are given; then it is its config */
        const char *params = note[0] ? "--params-b" : "--context";
        const char *value = note[0] ? "100" : "1000";
        if (note[0]) {
            run_result n;
            RUN(&n, "--model", id);
            assert_int_equal(n.status, 2);
            assert_non_null(strstr(n.err, note));
            run_free(&n);
        }
        for (size_t c = 0; c < 2; c++) {
            run_result a, b, d;
            RUN(&a, "--model", id, "--context", contexts[c], params, value, "--format", "json");
            RUN(&b, "--config", path, "--context", contexts[c], params, value, "--format", "json");
            RUN(&d, "--model", alias, "--context", contexts[c], params, value, "--format",
                "json");
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
    assert_int_equal(checked, 81);
}

/* The presets the program links, compiled at build time (src/model/presets_gen.c), against
 * their JSON read now: every field of preset_fields.def by name, then the whole layout,
 * arch and info, so that the two can never drift (a field the list lacks is caught by the
 * generator, and here again); and kv_model_preset_spec() - which copies the table - against
 * kv_config_read() for what else a preset sets. */
static void compiled_presets_are_their_json(void **state)
{
    (void)state;
    assert_int_equal(kv_model_presets_compiled_count, kv_model_presets_count);
    assert_int_equal(kv_model_preset_count(), kv_model_presets_count);
    static kv_spec read, got;
    static kv_model_info info, got_info;
    static kv_preset_compiled r;
    for (size_t i = 0; i < kv_model_presets_count; i++) {
        const kv_model_preset *m = kv_model_preset_at(i);
        const kv_preset_compiled *c = &kv_model_presets_compiled[i];
        char err[2048], err2[2048];
        memset(&read, 0, sizeof read);
        memset(&got, 0, sizeof got);
        kv_spec_defaults(&read);
        kv_status rc = kv_config_read(m->json, m->json_len, m->file, &read, &info, err, sizeof err);
        assert_int_equal(c->parsed, rc == KV_OK);
        kv_status rc2 = kv_model_preset_spec(m, &got, &got_info, err2, sizeof err2);
        assert_int_equal(rc2, rc);
        assert_string_equal(err2, err);
        if (rc != KV_OK)
            continue;
        memset(&r, 0, sizeof r);
        r.layers = read.layers;
        r.kv_heads = read.kv_heads;
        r.head_dim = read.head_dim;
        r.dtype = read.dtype;
        r.weight_dtype = read.weight_dtype;
        r.params_estimated = read.params_estimated;
        r.layout = read.layout;
        r.arch = read.arch;
        r.info = info;
#define PF_INT(path)                                                                         \
    if ((long long)c->path != (long long)r.path)                                             \
        fail_msg("%s: " #path " compiled %lld, read %lld", m->id, (long long)c->path,         \
                 (long long)r.path);
#define PF_NUM(path)                                                                         \
    if (memcmp(&c->path, &r.path, sizeof r.path) != 0)                                       \
        fail_msg("%s: " #path " compiled %a, read %a", m->id, c->path, r.path);
#define PF_STR(path)                                                                         \
    if (strcmp(c->path, r.path) != 0)                                                        \
        fail_msg("%s: " #path " compiled '%s', read '%s'", m->id, c->path, r.path);
#include "../src/model/preset_fields.def"
#undef PF_INT
#undef PF_NUM
#undef PF_STR
        assert_memory_equal(c->layout.pattern, r.layout.pattern, sizeof r.layout.pattern);
        assert_memory_equal(&c->layout, &r.layout, sizeof r.layout);
        assert_memory_equal(&c->arch, &r.arch, sizeof r.arch);
        assert_memory_equal(&c->info, &r.info, sizeof r.info);
        /* the spec the public call fills: the read one, with the preset's labels */
        assert_memory_equal(&got.layout, &read.layout, sizeof read.layout);
        assert_int_equal(got.layers, read.layers);
        assert_int_equal(got.kv_heads, read.kv_heads);
        assert_int_equal(got.head_dim, read.head_dim);
        assert_int_equal(got.dtype, read.dtype);
        assert_int_equal(got.weight_dtype, read.weight_dtype);
        assert_true(got.params_b == read.params_b);
        assert_int_equal(got.quantization, read.quantization);
        assert_memory_equal(&got_info, &info, sizeof info);
        if (!m->weights_unknown) {
            assert_memory_equal(&got.arch, &read.arch, sizeof read.arch);
            assert_int_equal(got.params_estimated, read.params_estimated);
        } else {
            assert_string_equal(got.arch.unknown, m->weights_unknown);
            assert_int_equal(got.arch.known, 0);
        }
        assert_string_equal(got.model_source, "built-in preset");
        assert_int_equal(got.max_context, info.max_context);
    }
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
    assert_int_equal(count_lines(r.out), 1 + 81 + 3); /* header, models, footnote */
    /* KV B/token counts every attention layer: gemma-3-27b-it's 62 layers (10 full + 52
     * sliding) x 2 x 16 KV heads x 128 x 2 B = 507,904 B, not the 81,920 B of the full ones */
    assert_non_null(strstr(r.out, "      507,904  62 layers: 10 full + 52 sliding(1024)"));
    /* Nemotron-H, block by block (hidden 2,688, no biases but conv1d's):
     *   M: in_proj 2,688 x (2 x 4,096 + 2 x 8 x 128 + 64) = 27,697,152; conv1d 6,144 x 4 +
     *      6,144 = 30,720; A_log / D / dt_bias 192; norm 4,096; out_proj 4,096 x 2,688 =
     *      11,010,048 => 38,742,208, x 23
     *   *: q / o 2 x 2,688 x 4,096 + k / v 2 x 2,688 x 256 = 23,396,352, x 6
     *   E: 128 relu2 experts 2 x 2,688 x 1,856 = 1,276,968,960; shared 2 x 2,688 x 3,712 =
     *      19,955,712; router 2,688 x 128 (no stored score bias) => 1,297,465,344, x 23
     *   embeddings 2 x 131,072 x 2,688 = 704,643,072; 52 block norms + the final one 2,688 x 53
     * => 31,577,937,344, the checkpoint's own count (data/models/SOURCES.md) to the parameter
     * (31.58B; KV B/token is its 6 attention layers: 2 x 6 x 2 x 128 x 2) */
    assert_non_null(strstr(r.out, "nemotron-3-nano-30b-a3b               31.58B        6,144  "
                                  "29 layers: 6 full + 23 state"));
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
    /* a preset's memory, 79.6475 GiB, at the text's 2 decimals (issue 19 item 3) */
    assert_non_null(strstr(r.out, "GPU memory : 79.65 GiB (H100 80GB)   (reserve 2 GiB"));
    run_free(&r);
    RUN(&r, "--gpu", "h1000");
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "kvcalc: --gpu: unknown GPU 'h1000'; did you mean 'h100'? "
                                  "(expected one of: RTX 4060, Apple M1 16GB, RTX 3080, "));
    run_free(&r);
    RUN(&r, "--list-gpus");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "H100 80GB                    81,559      79.65"));
    run_free(&r);
}

/* Calls f(g, word) for the name, every alias and every nvidia-smi / rocm-smi name of g. */
static void each_word(const kv_gpu *g, void (*f)(const kv_gpu *, const char *))
{
    char word[128];
    f(g, g->name);
    const char *lists[2] = {g->aliases, g->smi_names};
    const char seps[2] = {' ', '|'};
    for (int l = 0; l < 2; l++) {
        for (const char *p = lists[l]; p && *p;) {
            const char sep[2] = {seps[l], '\0'};
            size_t len = strcspn(p, sep);
            assert_true(len > 0 && len < sizeof word);
            memcpy(word, p, len);
            word[len] = '\0';
            f(g, word);
            p += len;
            p += (*p == seps[l]);
        }
    }
}

static void finds_itself(const kv_gpu *g, const char *word)
{
    const kv_gpu *found = kv_gpu_find(word);
    if (found != g)
        fail_msg("'%s' of %s finds %s", word, g->name, found ? found->name : "nothing");
}

/* Every GPU, by every name it has: the one nvidia-smi (rocm-smi, torch) prints above all.
 * A word that found another GPU first would mean two GPUs share it. */
static void gpus_found_by_every_name(void **state)
{
    (void)state;
    assert_true(kv_gpu_count() >= 40);
    assert_true(kv_gpu_count() <= KV_MAX_GPU_CHOICES); /* a plan weighs them all */
    for (size_t i = 0; i < kv_gpu_count(); i++) {
        const kv_gpu *g = kv_gpu_at(i);
        assert_non_null(g->smi_names);
        /* no device name tells one Apple machine's RAM from another's, and none was found
         * printed for these two Hygon DCUs: found by their names and aliases only */
        int nameless = strncmp(g->name, "Apple M", 7) == 0 ||
                       strcmp(g->name, "Hygon Z100L") == 0 || strcmp(g->name, "Hygon BW1000") == 0;
        if ((g->smi_names[0] == '\0') != nameless)
            fail_msg("%s: smi names '%s'", g->name, g->smi_names);
        each_word(g, finds_itself);
    }
    /* through the binary, pasted as nvidia-smi prints them */
    EXPECT_STDOUT("H100 80GB\n", "--gpu", "NVIDIA H100 80GB HBM3", "--get", "gpu");
    EXPECT_STDOUT("H100 80GB\n", "--gpu", "NVIDIA H100 PCIe", "--get", "gpu");
    EXPECT_STDOUT("A100 80GB\n", "--gpu", "NVIDIA A100-SXM4-80GB", "--get", "gpu");
    EXPECT_STDOUT("RTX 4090\n", "--gpu", "NVIDIA GeForce RTX 4090", "--get", "gpu");
    EXPECT_STDOUT("RTX A6000\n", "--gpu", "NVIDIA RTX A6000", "--get", "gpu");
    EXPECT_STDOUT("RTX 6000 Ada\n", "--gpu", "NVIDIA RTX 6000 Ada Generation", "--get", "gpu");
    EXPECT_STDOUT("L40S\n", "--gpu", "NVIDIA L40S", "--get", "gpu");
    EXPECT_STDOUT("MI300X\n", "--gpu", "AMD Instinct MI300X", "--get", "gpu");
    EXPECT_STDOUT("T4\n", "--gpu", "Tesla T4", "--get", "gpu");
    EXPECT_STDOUT("V100 32GB\n", "--gpu", "Tesla V100-SXM2-32GB", "--get", "gpu");
    EXPECT_STDOUT("B300\n", "--gpu", "NVIDIA B300 SXM6 AC", "--get", "gpu");
    EXPECT_STDOUT("DGX Spark\n", "--gpu", "NVIDIA GB10", "--get", "gpu");
    /* H20: 97,871 MiB x 2^20 = 102,625,181,696 B; MI250X (one GCD): rocm-smi's
     * 68,702,699,520 B = 65,520 MiB */
    EXPECT_STDOUT("102625181696\n", "--gpu", "NVIDIA H20", "--get", "gpu_mem_bytes");
    EXPECT_STDOUT("68702699520\n", "--gpu", "AMD Instinct MI250X", "--get", "gpu_mem_bytes");
}

/* The same letters and digits kv_gpu_find compares, brand prefixes dropped: written again
 * here so the property below does not lean on the code it checks. */
static void key_of(const char *word, char *out, size_t cap)
{
    static const char *const brands[] = {"nvidia", "amd", "tesla", "geforce"};
    char buf[128];
    size_t n = 0;
    for (const char *p = word; *p && n + 1 < sizeof buf; p++)
        if ((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9'))
            buf[n++] = *p;
        else if (*p >= 'A' && *p <= 'Z')
            buf[n++] = (char)(*p - 'A' + 'a');
    buf[n] = '\0';
    const char *k = buf;
    for (int again = 1; again;) {
        again = 0;
        for (size_t b = 0; b < 4; b++) {
            size_t len = strlen(brands[b]);
            if (strncmp(k, brands[b], len) == 0 && k[len] != '\0') {
                k += len;
                again = 1;
            }
        }
    }
    snprintf(out, cap, "%s", k);
}

static char keys[1024][128];
static const kv_gpu *owners[1024];
static size_t n_keys;

static void collect_key(const kv_gpu *g, const char *word)
{
    assert_true(n_keys < 1024);
    key_of(word, keys[n_keys], sizeof keys[n_keys]);
    assert_true(keys[n_keys][0] != '\0');
    owners[n_keys++] = g;
}

/* No two GPUs share a name, an alias or an nvidia-smi name, as matching sees them. */
static void no_two_gpus_share_a_name(void **state)
{
    (void)state;
    n_keys = 0;
    for (size_t i = 0; i < kv_gpu_count(); i++)
        each_word(kv_gpu_at(i), collect_key);
    for (size_t a = 0; a < n_keys; a++)
        for (size_t b = a + 1; b < n_keys; b++)
            if (owners[a] != owners[b] && strcmp(keys[a], keys[b]) == 0)
                fail_msg("%s and %s share '%s'", owners[a]->name, owners[b]->name, keys[a]);
}

/* A leading NVIDIA / AMD / Tesla / GeForce is optional, as are case, spaces, '-', '_'. */
static void brand_prefix_is_optional(void **state)
{
    (void)state;
    const kv_gpu *h100 = kv_gpu_find("h100");
    assert_non_null(h100);
    assert_ptr_equal(kv_gpu_find("H100 80GB HBM3"), h100);
    assert_ptr_equal(kv_gpu_find("nvidia-h100-80gb-hbm3"), h100);
    assert_ptr_equal(kv_gpu_find("NVIDIA H100"), h100);
    assert_ptr_equal(kv_gpu_find("NVIDIA NVIDIA H100"), h100);
    const kv_gpu *rtx4090 = kv_gpu_find("RTX 4090");
    assert_non_null(rtx4090);
    assert_ptr_equal(kv_gpu_find("GeForce RTX 4090"), rtx4090);
    assert_ptr_equal(kv_gpu_find("nvidia_geforce_rtx_4090"), rtx4090);
    assert_ptr_equal(kv_gpu_find("NVIDIA RTX 4090"), rtx4090);
    const kv_gpu *mi300x = kv_gpu_find("MI300X");
    assert_non_null(mi300x);
    assert_ptr_equal(kv_gpu_find("Instinct MI300X"), mi300x);
    assert_ptr_equal(kv_gpu_find("AMD MI300X"), mi300x);
    assert_ptr_equal(kv_gpu_find("A100-SXM4-80GB"), kv_gpu_find("A100 80GB"));
    assert_ptr_equal(kv_gpu_find("V100-SXM2-32GB"), kv_gpu_find("V100 32GB"));
    assert_ptr_equal(kv_gpu_find("AMD Radeon RX 7900 XTX"), kv_gpu_find("RX 7900 XTX"));
    /* the brand alone is no GPU, nor is a prefix of a name */
    assert_null(kv_gpu_find("NVIDIA"));
    assert_null(kv_gpu_find("AMD"));
    assert_null(kv_gpu_find("Tesla"));
    assert_null(kv_gpu_find("GeForce"));
    assert_null(kv_gpu_find(""));
    assert_null(kv_gpu_find("NVIDIA H1"));
    /* A10 and A10G are two GPUs now; "a10" is the A10 */
    assert_string_equal(kv_gpu_find("a10")->name, "A10");
    assert_string_equal(kv_gpu_find("NVIDIA A10G")->name, "A10G");
    assert_string_equal(kv_gpu_find("a800")->name, "A800 80GB");
    assert_string_equal(kv_gpu_find("h800")->name, "H800 80GB");
}

/* Only figures no public reading gave are estimates: the MI350X (marketed 288 GB, taken as
 * 288 x 1024 MiB) and the Hygon K100_AI (64 GB; hy-smi's 65,438 MiB is what is available,
 * not its total). Every other GPU has a driver total or an engine-reported one. */
static void estimates_are_flagged(void **state)
{
    (void)state;
    for (size_t i = 0; i < kv_gpu_count(); i++) {
        const kv_gpu *g = kv_gpu_at(i);
        int expected = strcmp(g->name, "MI350X") == 0 || strcmp(g->name, "Hygon K100_AI") == 0;
        if (g->estimated != expected)
            fail_msg("%s: estimated = %d", g->name, g->estimated);
        assert_true(g->total_mib > 0 || g->engine_gib > 0);
        if (g->estimated)
            assert_true(g->total_mib > 0 && g->engine_gib == 0);
    }
    const kv_gpu *mi350x = kv_gpu_find("AMD Instinct MI350X");
    assert_non_null(mi350x);
    assert_true(mi350x->total_mib == 288.0 * 1024);
    run_result r;
    RUN(&r, "--list-gpus");
    assert_int_equal(r.status, 0);
    assert_non_null(
        strstr(r.out, "MI350X                     294,912*     288.00  8,000  mi350x-288gb\n"));
    assert_non_null(
        strstr(r.out, "H20                          97,871      95.58  4,000  h20-96gb\n"));
    assert_non_null(
        strstr(r.out, "DGX Spark                         -     121.69    273  gb10 spark\n"));
    assert_non_null(strstr(r.out, "*: an estimate, the marketed capacity"));
    run_free(&r);
    RUN(&r, "--gpu", "mi350x", "--model", "qwen3-8b");
    assert_non_null(strstr(r.out, "GPU memory : 288.00 GiB (MI350X, estimate: the marketed capacity)"));
    run_free(&r);
    RUN(&r, "--gpu", "h100", "--model", "qwen3-8b");
    assert_null(strstr(r.out, "estimate: the marketed"));
    run_free(&r);
    /* an explicit --gpu-mem-gib drops the label and its estimate */
    RUN(&r, "--gpu", "mi350x", "--gpu-mem-gib", "80", "--model", "qwen3-8b");
    assert_non_null(strstr(r.out, "GPU memory : 80 GiB   (reserve"));
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
    /* every lesson number given: a real model with them says nothing of defaults */
    RUN(&r, "--model", "qwen2.5-7b-instruct", "--dtype", "fp16", "--weight-dtype", "fp16",
        "--params-b", "7", "--gpu-mem-gib", "48", "--overhead-gib", "2", "--context", "4096",
        "--prefix-tokens", "1024", "--prefix-requests", "50");
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

/* A real model sized with the lesson's numbers says so, and JSON names every source. */
static void lesson_defaults_are_named(void **state)
{
    (void)state;
    run_result r;
    RUN(&r, "--model", "qwen3-8b");
    assert_non_null(strstr(r.out, "(48 GiB is the lesson's illustrative GPU: give --gpu NAME or "
                                  "--gpu-mem-gib)"));
    assert_non_null(strstr(r.out, "(the 2 GiB reserve is the lesson's default"));
    assert_non_null(strstr(r.out, "(4,096 tokens per request is the lesson's default"));
    assert_non_null(strstr(r.out, "(the lesson's example, not your workload"));
    run_free(&r);
    RUN(&r, "--model", "qwen3-8b", "--gpu", "h100", "--context", "8k", "--prefix-tokens", "0");
    assert_null(strstr(r.out, "lesson's illustrative GPU"));
    assert_null(strstr(r.out, "tokens per request is the lesson's default"));
    assert_null(strstr(r.out, "the lesson's example, not your workload"));
    assert_non_null(strstr(r.out, "reserve is the lesson's default")); /* still not given */
    run_free(&r);
    RUN(&r, "--model", "qwen3-8b", "--gpu", "h100", "--context", "8k", "--format", "json");
    assert_non_null(strstr(r.out, "\"sources\": {\n    \"layers\": \"preset\","));
    assert_non_null(strstr(r.out, "\"params_b\": \"estimate\""));
    assert_non_null(strstr(r.out, "\"gpu_mem_gib\": \"preset\""));
    assert_non_null(strstr(r.out, "\"context\": \"flag\""));
    assert_non_null(strstr(r.out, "\"overhead_gib\": \"default\""));
    run_free(&r);
    /* the lesson's own model: its numbers are the lesson's on purpose, nothing is said */
    RUN(&r, "--format", "json");
    assert_non_null(strstr(r.out, "\"layers\": \"default\""));
    run_free(&r);
    RUN(&r, "--engine", "vllm", "--model", "qwen3-8b", "--format", "json");
    assert_non_null(strstr(r.out, "\"weights_gib\": \"estimate\""));
    run_free(&r);
}

/* --quantization: the linear layers in the method's type, the rest in the model's dtype.
 * Qwen2.5-7B by parts (the core's estimate): bf16 embeddings + head and norms, and with fp8
 * one byte per attention and MLP weight; awq: 0.5 B + 2.5 B per group of 128. */
static void quantization_methods(void **state)
{
    (void)state;
    kv_spec s;
    kv_model_info info;
    char err[256];
    kv_param_parts p;
    assert_int_equal(kv_model_preset_spec(kv_model_preset_find("qwen2.5-7b-instruct"), &s, &info,
                                          err, sizeof err), 0);
    kv_estimate_param_parts(&s.arch, &s.layout, s.layers, s.kv_heads, s.head_dim, &p);
    double linear = p.attention + p.dense_mlp + p.experts, rest = p.embeddings + p.other;
    run_result r;
    RUN(&r, "--model", "qwen2.5-7b-instruct", "--quantization", "fp8", "--get", "weights_bytes");
    assert_int_equal(r.status, 0);
    double got = strtod(r.out, NULL);
    assert_true(fabs(got - (rest * 2 + linear * 1)) < 1);
    run_free(&r);
    RUN(&r, "--model", "qwen2.5-7b-instruct", "-q", "awq", "--get", "weights_bytes");
    got = strtod(r.out, NULL);
    assert_true(fabs(got - (rest * 2 + linear * (0.5 + 2.5 / 128))) < 1);
    run_free(&r);
    /* --weight-dtype: every weight, embeddings included */
    RUN(&r, "--model", "qwen2.5-7b-instruct", "--weight-dtype", "fp8", "--get", "weights_bytes");
    got = strtod(r.out, NULL);
    assert_true(fabs(got - (rest + linear)) < 1);
    run_free(&r);
    RUN(&r, "--model", "qwen2.5-7b-instruct", "-q", "fp9");
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "-q: unknown value 'fp9'; did you mean 'fp8'?"));
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
    /* an unknown mixer: its weights are refused until given, its state is counted as 0 */
    RUN(&r, "--config", KVCALC_SOURCE_DIR "/tests/fixtures/variants/hybrid-unknown-state.json");
    assert_int_equal(r.status, 2);
    assert_string_equal(r.out, "");
    assert_non_null(strstr(r.err, "hybrid-unknown-state.json: the weights cannot be counted "
                                  "from its config (its state layers' mixer is not one it "
                                  "counts): give --params-b (billions of parameters)\n"));
    run_free(&r);
    RUN(&r, "--config", KVCALC_SOURCE_DIR "/tests/fixtures/variants/hybrid-unknown-state.json",
        "--params-b", "1");
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

/* --list-models prints the lists the build wrote (modellist.h): byte for byte what the
 * presets give through the reader, the core and the renderers now, in every format. */
static void model_list_is_the_presets_now(void **state)
{
    (void)state;
    static const char *const formats[3] = {"text", "json", "csv"};
    for (int f = 0; f < 3; f++) {
        FILE *t = tmpfile();
        assert_non_null(t);
        char err[2048];
        assert_int_equal(kv_model_list_write(t, (kv_list_format)f, err, sizeof err), 0);
        long n = ftell(t);
        rewind(t);
        char *want = malloc((size_t)n + 1);
        assert_non_null(want);
        assert_int_equal(fread(want, 1, (size_t)n, t), (size_t)n);
        want[n] = '\0';
        fclose(t);
        run_result r;
        RUN(&r, "--list-models", "--format", formats[f]);
        assert_int_equal(r.status, 0);
        assert_int_equal(r.out_len, (size_t)n);
        assert_memory_equal(r.out, want, (size_t)n);
        assert_true(n > 80 * 40); /* every preset's row */
        run_free(&r);
        free(want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_preset_equals_its_config),
        cmocka_unit_test(compiled_presets_are_their_json),
        cmocka_unit_test(model_names),
        cmocka_unit_test(model_list_is_the_presets_now),
        cmocka_unit_test(gpu_presets),
        cmocka_unit_test(gpus_found_by_every_name),
        cmocka_unit_test(no_two_gpus_share_a_name),
        cmocka_unit_test(brand_prefix_is_optional),
        cmocka_unit_test(estimates_are_flagged),
        cmocka_unit_test(explicit_flags_win),
        cmocka_unit_test(plain_model_keeps_the_lesson_table),
        cmocka_unit_test(text_shows_the_layout),
        cmocka_unit_test(lesson_defaults_are_named),
        cmocka_unit_test(quantization_methods),
        cmocka_unit_test(tensor_parallel_per_gpu),
        cmocka_unit_test(config_from_stdin),
        cmocka_unit_test(bad_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
