/*
 * presets.c - lookups in the model presets (generated) and the GPU table (below).
 *
 * GPU memory is what the driver reports: nvidia-smi's memory.total in MiB (rocm-smi's VRAM
 * total / 2^20 on AMD), which is what the CUDA / HIP context sees (an "80 GB" H100 reports
 * 81,559 MiB = 79.65 GiB, not 80 GiB). Where only a serving engine's or torch's total was
 * found (unified-memory parts, some AMD parts) the table has that instead, in GiB. A figure
 * no public reading gave is the marketed capacity and is flagged `estimated`. The peak memory
 * bandwidth is the vendor's published figure where one was read, else a third party's table
 * (graded in the sources), 0 where none was found. Every figure's source:
 * data/gpus/SOURCES.md.
 */
#include "kvprint.h"
#include "presets.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* One GPU per entry: name, total MiB, engine GiB, estimated, peak memory bandwidth in GB/s
 * (0: no figure found) and the form that figure is of ("" when the names cover one) on the
 * first line; the short aliases (space-separated) and the full names nvidia-smi / rocm-smi /
 * torch print ('|'-separated, pasted as printed) below it. */
#define GPU(name, mib, engine, est, gbs, form, aliases, smi)                                 \
    {name, aliases, smi, mib, engine, est, gbs, form}

static const kv_gpu gpus[] = {
    GPU("RTX 4060", 8188, 0, 0, 272, "",
        "4060 geforce-rtx-4060", "NVIDIA GeForce RTX 4060"),
    /* Apple silicon: unified memory, of which Metal lets the GPU hold its
     * recommendedMaxWorkingSetSize (what llama.cpp sizes against; ggml_metal_init prints
     * it, in MiB labelled "MB" in 2023 builds): one row per machine, as the limit follows
     * the RAM, and no device name (every M1 Max prints "Apple M1 Max") */
    GPU("Apple M1 16GB", 0, 10922.67 / 1024, 0, 68, "",
        "m1-16gb apple-m1-16gb", ""),
    GPU("RTX 3080", 10240, 0, 0, 760, "",
        "3080 geforce-rtx-3080 rtx-3080-10gb", "NVIDIA GeForce RTX 3080"),
    GPU("RTX 5070", 12227, 0, 0, 672, "",
        "5070 geforce-rtx-5070", "NVIDIA GeForce RTX 5070"),
    GPU("RTX 4070", 12282, 0, 0, 504, "",
        "4070 geforce-rtx-4070", "NVIDIA GeForce RTX 4070"),
    GPU("RTX 3060", 12288, 0, 0, 360, "", /* the 12 GB card (an 8 GB one prints the same name) */
        "3060 geforce-rtx-3060 rtx-3060-12gb", "NVIDIA GeForce RTX 3060"),
    GPU("T4", 15360, 14.56, 0, 320, "",
        "t4-16gb", "Tesla T4"),
    GPU("RTX 5070 Ti", 16303, 0, 0, 896, "",
        "5070-ti 5070ti geforce-rtx-5070-ti", "NVIDIA GeForce RTX 5070 Ti"),
    GPU("RTX 5080", 16303, 0, 0, 960, "",
        "5080 geforce-rtx-5080", "NVIDIA GeForce RTX 5080"),
    GPU("RTX 5060 Ti 16GB", 16311, 0, 0, 448, "",
        "5060-ti 5060ti rtx-5060-ti geforce-rtx-5060-ti", "NVIDIA GeForce RTX 5060 Ti"),
    GPU("RTX 4080", 16376, 0, 0, 717, "",
        "4080 geforce-rtx-4080", "NVIDIA GeForce RTX 4080"),
    GPU("RTX 4080 SUPER", 16376, 0, 0, 736, "",
        "4080-super 4080s geforce-rtx-4080-super", "NVIDIA GeForce RTX 4080 SUPER"),
    GPU("RTX 4070 Ti SUPER", 16376, 0, 0, 672, "",
        "4070-ti-super 4070tis geforce-rtx-4070-ti-super", "NVIDIA GeForce RTX 4070 Ti SUPER"),
    GPU("L4", 23034, 0, 0, 300, "",
        "l4-24gb", "NVIDIA L4"),
    GPU("A10G", 23028, 0, 0, 600, "",
        "a10g-24gb", "NVIDIA A10G"),
    GPU("A10", 23028, 0, 0, 600, "",
        "a10-24gb", "NVIDIA A10"),
    GPU("RX 7900 XTX", 24560, 0, 0, 960, "",
        "7900xtx 7900-xtx radeon-rx-7900-xtx", "Radeon RX 7900 XTX|AMD Radeon RX 7900 XTX"),
    GPU("RTX 3090", 24576, 23.58, 0, 936, "",
        "3090 geforce-rtx-3090", "NVIDIA GeForce RTX 3090"),
    GPU("RTX 4090", 24564, 0, 0, 1008, "",
        "4090 geforce-rtx-4090", "NVIDIA GeForce RTX 4090"),
    GPU("A30", 24576, 0, 0, 933, "",
        "a30-24gb", "NVIDIA A30"),
    GPU("Quadro RTX 6000", 24576, 0, 0, 672, "",
        "rtx6000 rtx-6000", "Quadro RTX 6000"),
    GPU("Apple M1 Max 32GB", 0, 21845.34 / 1024, 0, 400, "",
        "m1-max-32gb apple-m1-max-32gb", ""),
    GPU("Apple M2 Max 32GB", 0, 21845.34 / 1024, 0, 400, "",
        "m2-max-32gb apple-m2-max-32gb", ""),
    GPU("RTX 5090", 32607, 0, 0, 1792, "",
        "5090 geforce-rtx-5090", "NVIDIA GeForce RTX 5090"),
    GPU("Hygon Z100L", 32752, 0, 0, 0, "", /* rocminfo's GPU pool, 33,538,048 KB */
        "z100l dcu-z100l hygon-dcu-z100l", ""),
    GPU("V100 32GB", 32768, 0, 0, 900, "SXM2",
        "v100 v100-32gb v100-sxm2-32gb", "Tesla V100-SXM2-32GB|Tesla V100-PCIE-32GB"),
    GPU("A100 40GB", 40960, 39.39, 0, 1555, "SXM",
        "a100-40gb a100-sxm4-40gb a100-pcie-40gb", "NVIDIA A100-SXM4-40GB|NVIDIA A100-PCIE-40GB"),
    GPU("L40S", 46068, 44.42, 0, 864, "",
        "l40s-48gb", "NVIDIA L40S"),
    GPU("L40", 46068, 0, 0, 864, "",
        "l40-48gb", "NVIDIA L40"),
    GPU("L20", 46068, 0, 0, 864, "",
        "l20-48gb", "NVIDIA L20"),
    GPU("A40", 46068, 0, 0, 696, "",
        "a40-48gb", "NVIDIA A40"),
    GPU("RTX A6000", 49140, 0, 0, 768, "",
        "a6000 rtx-a6000", "NVIDIA RTX A6000"),
    GPU("RTX 6000 Ada", 49140, 0, 0, 960, "",
        "6000-ada rtx-6000-ada-generation", "NVIDIA RTX 6000 Ada Generation"),
    GPU("Apple M1 Max 64GB", 0, 49152.00 / 1024, 0, 400, "",
        "m1-max-64gb apple-m1-max-64gb", ""),
    GPU("Hygon BW1000", 65520, 0, 0, 0, "",
        "bw1000 dcu-bw1000 hygon-dcu-bw1000", ""),
    /* estimate: marketed 64 GB (hy-smi shows 65,438 MiB available; no total was found) */
    GPU("Hygon K100_AI", 65536, 0, 1, 896, "",
        "k100-ai k100ai dcu-k100-ai hygon-dcu-k100-ai", "K100_AI"),
    GPU("MI210", 65520, 0, 0, 1600, "",
        "mi210-64gb", "AMD Instinct MI210"),
    /* one of its two GCDs: each is a device of 64 GB, with half the package's bandwidth */
    GPU("MI250X", 65520, 0, 0, 1600, "one GCD",
        "mi250x-64gb mi250", "AMD Instinct MI250X|AMD Instinct MI250X/MI250"),
    GPU("Apple M2 Max 96GB", 0, 73728.00 / 1024, 0, 400, "",
        "m2-max-96gb apple-m2-max-96gb", ""),
    GPU("A100 80GB", 81920, 79.25, 0, 2039, "SXM",
        "a100 a100-80gb a100-sxm4-80gb a100-pcie-80gb", "NVIDIA A100-SXM4-80GB|NVIDIA A100 80GB PCIe"),
    GPU("A800 80GB", 81920, 0, 0, 2039, "SXM4",
        "a800 a800-80gb a800-sxm4-80gb a800-pcie-80gb", "NVIDIA A800-SXM4-80GB|NVIDIA A800 80GB PCIe"),
    GPU("H100 80GB", 81559, 79.18, 0, 3350, "SXM",
        "h100 h100-sxm h100-pcie h100-80gb", "NVIDIA H100 80GB HBM3|NVIDIA H100 PCIe"),
    GPU("H800 80GB", 81559, 0, 0, 3350, "",
        "h800 h800-80gb h800-sxm", "NVIDIA H800"),
    GPU("H100 NVL", 95830, 0, 0, 3900, "",
        "h100-nvl h100-94gb", "NVIDIA H100 NVL"),
    GPU("H20", 97871, 0, 0, 4000, "",
        "h20-96gb", "NVIDIA H20"),
    GPU("GH200 96GB", 97871, 0, 0, 4000, "",
        "gh200 gh200-96gb gh200-480gb", "NVIDIA GH200 480GB"),
    GPU("RTX PRO 6000 Blackwell", 97887, 0, 0, 1792, "",
        "rtx-pro-6000 rtx-pro-6000-blackwell",
        "NVIDIA RTX PRO 6000 Blackwell Workstation Edition|"
        "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition|"
        "NVIDIA RTX PRO 6000 Blackwell Server Edition"),
    GPU("DGX Spark", 0, 121.69, 0, 273, "", /* GB10, unified: nvidia-smi shows no total */
        "gb10 spark", "NVIDIA GB10"),
    GPU("Jetson Thor", 0, 122.80, 0, 273, "", /* unified memory: nvidia-smi shows no total */
        "thor jetson-agx-thor agx-thor", "NVIDIA Thor"),
    GPU("H200", 143771, 139.81, 0, 4800, "",
        "h200-141gb h200-sxm", "NVIDIA H200"),
    GPU("H200 NVL", 143771, 0, 0, 4800, "",
        "h200-nvl", "NVIDIA H200 NVL"),
    GPU("H20 141GB", 143771, 0, 0, 4917, "",
        "h20-3e h20-141gb", "NVIDIA H20-3e"),
    GPU("B200", 183359, 0, 0, 7700, "",
        "b200-180gb", "NVIDIA B200"),
    GPU("GB200", 189471, 0, 0, 8000, "", /* the B200 GPU of a GB200 superchip */
        "gb200-nvl72", "NVIDIA GB200"),
    GPU("MI300X", 0, 191.45, 0, 5300, "",
        "mi300x-192gb", "AMD Instinct MI300X"),
    GPU("MI325X", 0, 255.98, 0, 6000, "",
        "mi325x-256gb", "AMD Instinct MI325X"),
    GPU("B300", 275040, 0, 0, 7700, "",
        "b300-288gb b300-sxm6", "NVIDIA B300 SXM6 AC"),
    GPU("GB300", 284208, 0, 0, 8000, "", /* the B300 GPU of a GB300 superchip (NVL72) */
        "gb300-nvl72", "NVIDIA GB300"),
    GPU("MI355X", 0, 287.98, 0, 8000, "",
        "mi355x-288gb", "AMD Instinct MI355X"),
    GPU("MI350X", 294912, 0, 1, 8000, "", /* estimate: marketed 288 GB */
        "mi350x-288gb", "AMD Instinct MI350X"),
};
#undef GPU
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
    for (size_t i = 0; i < len && in[i] && n + 1 < cap; i++) {
        char c = in[i]; /* ASCII, not the locale's classes: a GPU's name is ASCII */
        if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z'))
            out[n++] = c;
        else if (c >= 'A' && c <= 'Z')
            out[n++] = (char)(c - 'A' + 'a');
    }
    out[n] = '\0';
}

/* A squashed name without its vendor / brand prefixes. nvidia-smi prints "NVIDIA GeForce
 * RTX 4090", "NVIDIA H100 80GB HBM3" and "Tesla T4", rocm-smi and torch "AMD Instinct
 * MI300X": dropping a leading "nvidia", "amd", "tesla" and "geforce" (in any number) lets
 * a user paste what the tool printed, or leave the brand out, and still find the GPU. Both
 * sides of a comparison are stripped the same way; the tests check that no two GPUs then
 * share a name. */
static const char *unbranded(const char *s)
{
    static const char *const prefixes[] = {"nvidia", "amd", "tesla", "geforce"};
    /* most names start with none of them: one compare, not four (a lookup walks every
     * GPU's names at every start) */
    while (*s == 'n' || *s == 'a' || *s == 't' || *s == 'g') {
        int again = 0;
        for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
            size_t n = strlen(prefixes[i]);
            if (strncmp(s, prefixes[i], n) == 0 && s[n] != '\0') {
                s += n;
                again = 1;
            }
        }
        if (!again)
            break;
    }
    return s;
}

static int is_alnum(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Whether name a (alen bytes) is want (wlen bytes), a name already squashed and unbranded. */
static int same_name(const char *a, size_t alen, const char *want, size_t wlen)
{
    char x[96];
    if (alen + 1 < sizeof x) { /* not cut short by squash: compare its tail first */
        /* unbranding only drops letters from the front, so a squashed name that is want
         * ends with want's letters: read them from the end of a, lower-cased, without
         * building the squashed copy (a lookup compares ~170 names, nearly all of which
         * differ in their last few letters: 30k of an engine run's instructions) */
        if (wlen == 0)
            return 0;
        size_t i = alen, k = wlen;
        while (k > 0) {
            while (i > 0 && !is_alnum(a[i - 1]))
                i--;
            if (i == 0)
                return 0; /* fewer letters than want */
            char c = a[i - 1] >= 'A' && a[i - 1] <= 'Z' ? (char)(a[i - 1] - 'A' + 'a') : a[i - 1];
            if (c != want[k - 1])
                return 0;
            i--;
            k--;
        }
    }
    squash(a, alen, x, sizeof x);
    return x[0] != '\0' && strcmp(unbranded(x), want) == 0;
}

/* Whether one of the sep-separated names in list is want (squashed and unbranded). */
static int in_list(const char *list, char sep, const char *want, size_t wlen)
{
    /* the separator found here, not with strcspn: a run called it on every GPU's lists,
     * and its code and table were two pages of libc faulted in for it alone (issue 22) */
    for (const char *p = list ? list : ""; *p;) {
        const char *end = p;
        while (*end && *end != sep)
            end++;
        if (same_name(p, (size_t)(end - p), want, wlen))
            return 1;
        p = end + (*end == sep);
    }
    return 0;
}

const kv_gpu *kv_gpu_find(const char *name)
{
    char y[96]; /* the name asked for, squashed once (not once a GPU: 80k instructions) */
    squash(name, strlen(name), y, sizeof y);
    const char *want = unbranded(y);
    size_t wlen = strlen(want);
    for (size_t i = 0; i < N_GPUS; i++) {
        const kv_gpu *g = &gpus[i];
        if (same_name(g->name, strlen(g->name), want, wlen) ||
            in_list(g->aliases, ' ', want, wlen) || in_list(g->smi_names, '|', want, wlen))
            return g;
    }
    return NULL;
}

double kv_gpu_gib(const kv_gpu *g)
{
    return g->total_mib > 0 ? g->total_mib / 1024.0 : g->engine_gib;
}

/* ASCII case folding: the ids and aliases are ASCII, and in the "C" locale the program
 * runs in (it never calls setlocale) tolower() is this; inline, since a look-up compares
 * ~170 names and tolower's call through the locale's table was 14k of an engine run's
 * instructions (callgrind). */
static int fold(unsigned char c)
{
    return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

static int equal_nocase(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (fold((unsigned char)*a) != fold((unsigned char)*b))
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

/* Repositories the Hub renamed, which logs still print under their first names: Meta's
 * Llama 3.1 repos were "Meta-Llama-3.1-*" (SGLang's S02 log: meta-llama/Meta-Llama-3.1-8B-
 * Instruct), now "Llama-3.1-*", the old names redirecting. */
static const struct {
    const char *old_prefix, *new_prefix;
} renamed[] = {
    {"meta-llama/Meta-Llama-3.1-", "meta-llama/Llama-3.1-"},
};

static const kv_model_preset *find_exact(const char *name)
{
    for (size_t i = 0; i < kv_model_presets_count; i++) {
        const kv_model_preset *m = &kv_model_presets[i];
        if (equal_nocase(m->id, name) || equal_nocase(m->alias, name))
            return m;
    }
    return NULL;
}

const kv_model_preset *kv_model_preset_find(const char *name)
{
    const kv_model_preset *m = find_exact(name);
    for (size_t i = 0; !m && i < sizeof renamed / sizeof renamed[0]; i++) {
        size_t n = strlen(renamed[i].old_prefix);
        char now[300];
        if (strncmp(name, renamed[i].old_prefix, n) == 0 &&
            kv_snprintf(now, sizeof now, "%s%s", renamed[i].new_prefix, name + n) < (int)sizeof now)
            m = find_exact(now);
    }
    return m;
}

void kv_preset_compiled_apply(const kv_preset_compiled *c, kv_spec *s, kv_model_info *info)
{
    s->layers = c->layers;
    s->kv_heads = c->kv_heads;
    s->head_dim = c->head_dim;
    s->dtype = c->dtype;
    s->weight_dtype = c->weight_dtype;
    s->params_estimated = c->params_estimated;
    s->layout = c->layout;
    s->arch = c->arch;
    *info = c->info;
}

kv_status kv_model_preset_spec(const kv_model_preset *m, kv_spec *s, kv_model_info *info, char *err,
                         size_t errcap)
{
    kv_spec_defaults(s);
    /* its place in the table, if it is in the table (a caller may pass a preset of its own:
     * the subtraction of unrelated pointers is undefined, the equality test is not) */
    size_t i = (size_t)(((uintptr_t)m - (uintptr_t)kv_model_presets) / sizeof *m);
    int rc;
    if (i < kv_model_presets_count && &kv_model_presets[i] == m &&
        i < kv_model_presets_compiled_count && kv_model_presets_compiled[i].parsed) {
        kv_preset_compiled_apply(&kv_model_presets_compiled[i], s, info);
        if (errcap)
            err[0] = '\0';
        rc = KV_OK;
    } else {
        rc = kv_config_read(m->json, m->json_len, m->file, s, info, err, errcap);
    }
    if (rc == KV_OK && m->weights_unknown) { /* stored as the config does not say */
        kv_snprintf(s->arch.unknown, sizeof s->arch.unknown, "%s", m->weights_unknown);
        s->arch.known = 0;
        s->params_estimated = 0;
    }
    s->model_name = m->id;
    s->model_source = "built-in preset";
    s->max_context = info->max_context;
    return rc;
}
