/*
 * test_checkpoints.c - the weights are exact or refused.
 *
 * 1. Every preset has a stored checkpoint size in data/models/CHECKPOINTS.tsv (a real
 *    model.safetensors.index.json total_size, or the checkpoint's own tensor count): the
 *    estimate from the preset's config - its parameters, or its bytes in the checkpoint's
 *    dtypes - with the MTP layers the checkpoint holds (engines load them only for
 *    speculative decoding, so kvcalc's weights leave them out) and a tied head the file
 *    stores anyway, is within 1% of it. All land within 0.012%.
 * 2. No code path sizes weights with a silent default: every preset and every test config
 *    either has its parameters estimated from the config, or kv_compute() refuses it with
 *    KV_ERR_WEIGHTS_UNKNOWN naming what it could not count, until params_b is given.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvcalc.h"
#include "run.h"

static void within_one_percent_of_the_checkpoint(void **state)
{
    (void)state;
    char *table = read_file(KVCALC_SOURCE_DIR "/data/models/CHECKPOINTS.tsv", NULL);
    assert_non_null(table);
    int checked = 0;
    double worst = 0;
    char *save = NULL;
    for (char *line = strtok_r(table, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (line[0] == '#')
            continue;
        char id[200], kind[16];
        double value;
        int tied;
        assert_int_equal(sscanf(line, "%199[^\t]\t%15[^\t]\t%lf\t%d", id, kind, &value, &tied), 4);
        const kv_model_preset *p = kv_model_preset_find(id);
        if (!p)
            fail_msg("%s: no such preset", id);
        kv_spec s;
        kv_model_info info;
        char err[256];
        assert_int_equal(kv_model_preset_spec(p, &s, &info, err, sizeof err), KV_OK);
        assert_true(s.params_estimated);
        kv_param_parts q;
        kv_estimate_param_parts(&s.arch, &s.layout, s.layers, s.kv_heads, s.head_dim, &q);
        double head = tied ? (double)s.arch.vocab * (double)s.arch.hidden : 0;
        double est;
        if (strcmp(kind, "params") == 0) {
            est = kv_estimate_params(&s.arch, &s.layout, s.layers, s.kv_heads, s.head_dim) +
                  q.mtp + head;
        } else {
            assert_string_equal(kind, "bytes");
            double base = kv_dtype_get(s.arch.base_dtype)->bytes;
            est = kv_estimate_weight_bytes(&s.arch, &s.layout, s.layers, s.kv_heads, s.head_dim,
                                           s.weight_dtype) +
                  (q.mtp + head) * base;
        }
        double off = (est - value) / value;
        print_message("  %-46s %-6s %16.0f vs %16.0f  %+.4f%%\n", id, kind, est, value, off * 100);
        if (fabs(off) > 0.01)
            fail_msg("%s: the estimate is %.3f%% from its checkpoint", id, off * 100);
        worst = fabs(off) > worst ? fabs(off) : worst;
        checked++;
    }
    free(table);
    print_message("  %d checkpoints, the worst %.4f%% off\n", checked, worst * 100);
    assert_int_equal(checked, 81); /* docs/models.md quotes both */
    /* and every preset has its row: a preset without a real figure is a test config
     * (tests/fixtures/unverified, data/models/SOURCES.md), not a preset */
    size_t presets = 0;
    while (kv_model_preset_at(presets))
        presets++;
    assert_int_equal(presets, (size_t)checked);
    /* Qwen3-32B-FP8, -0.0111%: its 1,904,640 BF16 block scales (128 x 128 blocks of every
     * linear weight: 29,760 a layer x 64) are not counted, and its q/k norms are counted at
     * 1 B: 2 x 1,904,640 + 64 x 256 = 3,825,664 B, the gap exactly */
    assert_true(worst < 1.2e-4);
}

/* The weights of spec s are the config's estimate, or refused until given. Returns 1 when
 * refused. */
static int estimated_or_refused(kv_spec *s, const char *what)
{
    kv_result r;
    if (s->params_estimated) {
        assert_int_equal(s->arch.unknown[0], 0);
        assert_int_equal(kv_compute(s, &r), KV_OK);
        if (!(r.params > 0))
            fail_msg("%s: no parameters", what);
        return 0;
    }
    if (s->checkpoint_weights_bytes > 0)
        return 0;
    if (!s->arch.unknown[0])
        fail_msg("%s: weights neither estimated nor refused", what);
    assert_int_equal(kv_compute(s, &r), KV_ERR_WEIGHTS_UNKNOWN);
    kv_error e;
    kv_explain(s, KV_ERR_WEIGHTS_UNKNOWN, &e);
    assert_non_null(strstr(e.msg, s->arch.unknown));
    assert_non_null(strstr(e.msg, "--params-b"));
    return 1;
}

static void no_silent_default(void **state)
{
    (void)state;
    size_t presets = 0;
    for (size_t i = 0; kv_model_preset_at(i); i++, presets++) {
        kv_spec s;
        kv_model_info info;
        char err[256];
        const kv_model_preset *p = kv_model_preset_at(i);
        assert_int_equal(kv_model_preset_spec(p, &s, &info, err, sizeof err), KV_OK);
        /* refused only where INDEX.tsv says what its config leaves out */
        if (estimated_or_refused(&s, p->id) != (p->weights_unknown != NULL))
            fail_msg("%s: weights refused without a reason in INDEX.tsv, or estimated with one",
                     p->id);
    }
    assert_true(presets >= 78);
    /* every config a test reads */
    static const char *const dirs[] = {KVCALC_SOURCE_DIR "/tests/fixtures/variants",
                                       KVCALC_SOURCE_DIR "/tests/fixtures/frontier",
                                       KVCALC_SOURCE_DIR "/tests/fixtures/unverified"};
    size_t configs = 0, refused = 0;
    for (size_t d = 0; d < sizeof dirs / sizeof dirs[0]; d++) {
        DIR *dir = opendir(dirs[d]);
        assert_non_null(dir);
        for (struct dirent *e = readdir(dir); e; e = readdir(dir)) {
            size_t n = strlen(e->d_name);
            if (n < 5 || strcmp(e->d_name + n - 5, ".json") != 0)
                continue;
            char path[1024], err[512];
            snprintf(path, sizeof path, "%s/%s", dirs[d], e->d_name);
            size_t len;
            char *text = read_file(path, &len);
            assert_non_null(text);
            kv_spec s;
            kv_model_info info;
            kv_spec_defaults(&s);
            if (kv_config_read(text, len, e->d_name, &s, &info, err, sizeof err) == KV_OK) {
                s.model_name = e->d_name;
                refused += (size_t)estimated_or_refused(&s, e->d_name);
                configs++;
            }
            free(text);
        }
        closedir(dir);
    }
    print_message("  %zu presets, %zu test configs (%zu refused until --params-b)\n", presets,
                  configs, refused);
    assert_true(configs >= 13 && refused >= 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(within_one_percent_of_the_checkpoint),
        cmocka_unit_test(no_silent_default),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
