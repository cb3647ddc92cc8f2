/*
 * presets.c - lookups in the model presets (generated) and the GPU table (below).
 *
 * GPU memory comes from ../docs/gpus.md readings: nvidia-smi's total in MiB, which is
 * what the driver hands to the CUDA context (an "80 GB" H100 reports 81,559 MiB = 79.65
 * GiB, not 80 GiB). The MI300X has only an engine-reported total.
 */
#include "presets.h"

#include <ctype.h>
#include <string.h>

static const kv_gpu gpus[] = {
    {"T4", "t4-16gb", 15360, 14.56},
    {"L4", "l4-24gb", 23034, 0},
    {"A10G", "a10 a10-24gb", 23028, 0},
    {"RTX 3090", "3090 geforce-rtx-3090", 24576, 23.58},
    {"RTX 4090", "4090 geforce-rtx-4090", 24564, 0},
    {"A30", "a30-24gb", 24576, 0},
    {"Quadro RTX 6000", "rtx6000 rtx-6000", 24576, 0},
    {"RTX 5090", "5090 geforce-rtx-5090", 32607, 0},
    {"V100 32GB", "v100 v100-32gb v100-sxm2-32gb", 32768, 0},
    {"A100 40GB", "a100-40gb a100-sxm4-40gb a100-pcie-40gb", 40960, 39.39},
    {"L40S", "l40s-48gb", 46068, 44.42},
    {"A100 80GB", "a100 a100-80gb a100-sxm4-80gb a100-pcie-80gb a800 a800-80gb", 81920, 79.25},
    {"H100 80GB", "h100 h100-sxm h100-pcie h100-80gb h800", 81559, 79.18},
    {"H100 NVL", "h100-nvl h100-94gb", 95830, 0},
    {"RTX PRO 6000 Blackwell", "rtx-pro-6000 rtx-pro-6000-blackwell", 97887, 0},
    {"H200", "h200-141gb h200-sxm", 143771, 139.81},
    {"B200", "b200-180gb", 183359, 0},
    {"MI300X", "mi300x-192gb", 0, 191.45},
};
#define N_GPUS (sizeof gpus / sizeof gpus[0])

size_t kv_gpu_count(void)
{
    return N_GPUS;
}

const kv_gpu *kv_gpu_at(size_t i)
{
    return i < N_GPUS ? &gpus[i] : NULL;
}

/* Lower-case letters and digits only: "H100-80GB" and "h100 80gb" both become "h10080gb". */
static void squash(const char *in, size_t len, char *out, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < len && in[i] && n + 1 < cap; i++)
        if (isalnum((unsigned char)in[i]))
            out[n++] = (char)tolower((unsigned char)in[i]);
    out[n] = '\0';
}

static int same_name(const char *a, size_t alen, const char *want)
{
    char x[96], y[96];
    squash(a, alen, x, sizeof x);
    squash(want, strlen(want), y, sizeof y);
    return x[0] != '\0' && strcmp(x, y) == 0;
}

const kv_gpu *kv_gpu_find(const char *name)
{
    for (size_t i = 0; i < N_GPUS; i++) {
        const kv_gpu *g = &gpus[i];
        if (same_name(g->name, strlen(g->name), name))
            return g;
        for (const char *p = g->aliases; *p;) {
            size_t len = strcspn(p, " ");
            if (same_name(p, len, name))
                return g;
            p += len;
            p += (*p == ' ');
        }
    }
    return NULL;
}

double kv_gpu_gib(const kv_gpu *g)
{
    return g->total_mib > 0 ? g->total_mib / 1024.0 : g->engine_gib;
}

static int equal_nocase(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return 0;
    return *a == *b;
}

size_t kv_model_preset_count(void)
{
    return kv_model_presets_count;
}

const kv_model_preset *kv_model_preset_at(size_t i)
{
    return i < kv_model_presets_count ? &kv_model_presets[i] : NULL;
}

const kv_model_preset *kv_model_preset_find(const char *name)
{
    for (size_t i = 0; i < kv_model_presets_count; i++) {
        const kv_model_preset *m = &kv_model_presets[i];
        if (equal_nocase(m->id, name) || equal_nocase(m->alias, name))
            return m;
    }
    return NULL;
}

/* Case-insensitive Levenshtein distance, with one row of at most 128 + 1 cells (longer
 * names are not compared: no preset is that long, and none would be close). */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), row[129];
    if (la > 128 || lb > 128)
        return (size_t)-1;
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t same = tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 1]);
            size_t best = diag + !same;
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

const kv_model_preset *kv_model_preset_closest(const char *name)
{
    const kv_model_preset *best = NULL;
    size_t best_d = (size_t)-1;
    for (size_t i = 0; i < kv_model_presets_count; i++) {
        const kv_model_preset *m = &kv_model_presets[i];
        size_t d = edit_distance(m->id, name), da = edit_distance(m->alias, name);
        if (da < d)
            d = da;
        if (d < best_d) {
            best_d = d;
            best = m;
        }
    }
    /* "close": a typo or two, never a different model that merely shares a prefix */
    return best && best_d <= 3 && best_d * 3 < strlen(name) ? best : NULL;
}

int kv_model_preset_spec(const kv_model_preset *m, kv_spec *s, kv_model_info *info, char *err,
                         size_t errcap)
{
    kv_spec_defaults(s);
    int rc = kv_config_read(m->json, m->json_len, m->file, s, info, err, errcap);
    s->model_name = m->id;
    s->model_source = "built-in preset";
    s->max_context = info->max_context;
    return rc;
}
