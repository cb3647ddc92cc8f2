/*
 * test_ollama.c - the Ollama engine (docs/ollama.md).
 *
 * Expected values come from three places: the real server logs of tests/logs/ollama-*.log
 * (each figure of their "offload" lines, to Go's "%.1f" of its unit), hand arithmetic of
 * Ollama's formulas written out below (fs/ggml/ggml.go GraphSize, llm/memory.go
 * EstimateGPULayers, llm/server.go's layout, at the releases cited in src/engines/ollama.c),
 * and a property: from 0.30 Ollama runs llama-server, so its figures must be the llama.cpp
 * engine's for the flags Ollama passes. The models of the logs are rebuilt from the logs'
 * own metadata (ollama_models.c); their sizes are checked against the logs' buffer lines
 * first, so that the rest is not built on a wrong reconstruction.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KVCALC_ENGINES
#include "kvcalc.h"
#include "ollama_models.h"
#include "run.h"

#define LOGS KVCALC_SOURCE_DIR "/tests/logs/"
#define MODELS KVCALC_BINARY_DIR "/engines/ollama/"
#define MIB 1048576.0
#define GIB 1073741824.0

static kv_gguf_info g; /* large: not on the stack */
static kv_log lg;

/* Spec of model `id` (its GGUF header read from memory) with the Ollama engine of
 * `version` (0.MINOR.PATCH as MINOR x 100 + PATCH). */
static void spec_of(const char *id, int version, kv_spec *s)
{
    gguf_writer w;
    kv_model_info info;
    char err[512];
    size_t len;
    gw_init(&w);
    assert_int_equal(ollama_model_build(id, &w), 0);
    unsigned char *p = gw_finish(&w, 3, 0, &len);
    kv_spec_defaults(s);
    if (kv_gguf_read(p, len, id, s, &info, &g, err, sizeof err) != KV_OK)
        fail_msg("%s: %s", id, err);
    free(p);
    gw_free(&w);
    s->gguf = &g;
    assert_int_equal(kv_spec_set_engine(s, KV_ENGINE_OLLAMA), KV_OK);
    s->ollama.version = version;
}

static void compute(const kv_spec *s, kv_result *r)
{
    kv_status st = kv_compute(s, r);
    if (st != KV_OK) {
        kv_error e;
        kv_explain(s, st, &e);
        fail_msg("kv_compute: %d: %s", st, e.msg);
    }
}

/* HumanBytes2 of x equals the logged text. */
static void expect_hb2(double x, const char *logged)
{
    char buf[64];
    kv_ollama_human_bytes2(x, buf, sizeof buf);
    if (strcmp(buf, logged) != 0)
        fail_msg("HumanBytes2(%.0f) = \"%s\", the log says \"%s\"", x, buf, logged);
}

/* ---- the models rebuilt from the logs ------------------------------------------------ */

/* The MiB of every "model buffer size = X MiB" line of a log, and its "model size" /
 * "file size" in GiB. */
static void log_sizes(const char *log, double *buffers_mib, double *size_gib)
{
    char *text = read_file(log, NULL);
    assert_non_null(text);
    *buffers_mib = 0;
    *size_gib = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        char *b = strstr(line, "model buffer size =");
        char *m = strstr(line, "model size       =");
        char *f = strstr(line, "file size   =");
        double x;
        if (b && sscanf(b, "model buffer size = %lf MiB", &x) == 1)
            *buffers_mib += x;
        if (m && sscanf(m, "model size       = %lf GiB", &x) == 1)
            *size_gib = x;
        if (f && sscanf(f, "file size   = %lf GiB", &x) == 1)
            *size_gib = x;
    }
    free(text);
}

static void models_match_their_logs(void **state)
{
    (void)state;
    static const struct {
        const char *id, *log;
        int buffers; /* the log's buffer lines hold every tensor (else only the size line) */
    } cases[] = {
        {"llama3-8b-q4_0", "ollama-o10.log", 1},     {"llama3.1-8b-q4_k_m", "ollama-o02.log", 1},
        {"llama3.2-3b-q4_k_m", "ollama-o12.log", 1}, {"llama2-7b-q4_0", "ollama-o23.log", 1},
        {"smollm2-1.7b-q8_0", "ollama-o01.log", 1},  {"granite-code-8b-q4_0", "ollama-o06.log", 0},
        {"llama3.1-8b-q4_0", "ollama-o04.log", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[512];
        double buffers, size;
        snprintf(path, sizeof path, "%s%s", LOGS, cases[i].log);
        log_sizes(path, &buffers, &size);
        double bytes = (double)ollama_model_bytes(cases[i].id, NULL);
        print_message("  %-22s %.2f MiB (log: buffers %.2f MiB, size %.2f GiB)\n", cases[i].id,
                      bytes / MIB, buffers, size);
        /* the buffers carry the allocator's alignment: tens of KiB over the tensors */
        if (cases[i].buffers && !(bytes / MIB <= buffers + 0.005 && bytes / MIB > buffers - 0.05))
            fail_msg("%s: %.4f MiB of tensors, the log's buffers %.2f MiB", cases[i].id,
                     bytes / MIB, buffers);
        if (size > 0 && fabs(bytes / GIB - size) > 0.005)
            fail_msg("%s: %.4f GiB of tensors, the log's size %.2f GiB", cases[i].id, bytes / GIB,
                     size);
    }
}

/* ---- the real logs: every figure of the estimate, to the log's own rounding ---------- */

typedef struct {
    const char *log, *model;
    int rows; /* rows the comparison shows */
} log_case;

static const log_case logs[] = {
    {"ollama-o01.log", "smollm2-1.7b-q8_0", 12},    /* 0.6.0, CPU, parallel 4 */
    {"ollama-o02.log", "llama3.1-8b-q4_k_m", 12},   /* 0.5.4, RTX 4090, parallel 4 */
    {"ollama-o04.log", "llama3.1-8b-q4_0", 12},     /* ~0.3.x (no version line), T4 */
    {"ollama-o06.log", "granite-code-8b-q4_0", 12}, /* ~0.4.0 (none), Metal, parallel 4 */
    {"ollama-o07.log", "granite-code-8b-q4_0", 12}, /* the same, 128000 tokens: 20 of 37 */
    {"ollama-o08.log", "granite-code-8b-q4_0", 12}, /* the same, 32768 x 4 */
    {"ollama-o10.log", "llama3-8b-q4_0", 12},       /* 0.9.6, CPU, parallel 2 */
    {"ollama-o12.log", "llama3.2-3b-q4_k_m", 11},   /* 0.12.3, CPU, a load request; the
                                                       source wraps a key across lines */
    {"ollama-o13.log", "llama3-8b-q4_0", 11},       /* 0.1.48, CPU, overflowing 5.0 GiB */
    {"ollama-o23.log", "llama2-7b-q4_0", 12},       /* 0.7.0, Metal, MHA */
    {"ollama-o18.log", "llama3-70b-q4_k_m", 11},    /* ~0.5.x, three RTX 4090-class GPUs */
};

/* The logged and kvcalc's figure of one row of the text table ("6.50 GiB", "560.00 MiB",
 * "33"). */
static int row_values(const char *out, const char *quantity, double *logged, double *kv)
{
    char key[80], u1[8] = "", u2[8] = "";
    snprintf(key, sizeof key, "\n%s ", quantity);
    const char *p = strstr(out, key);
    if (!p)
        return -1;
    p += strlen(key);
    int n = sscanf(p, " %lf %7s %lf %7s", logged, u1, kv, u2);
    if (n == 4 && strcmp(u1, "GiB") == 0)
        *logged *= GIB, *kv *= GIB;
    else if (n == 4 && strcmp(u1, "MiB") == 0)
        *logged *= MIB, *kv *= strcmp(u2, "GiB") == 0 ? GIB : MIB;
    else if (sscanf(p, " %lf %lf", logged, kv) != 2)
        return -1;
    return 0;
}

/* Each log twice: with its model's GGUF, and with the model as the log's own lines describe
 * it (the runner's loader keys, file size and tensor counts: the blob is not here) - O13's
 * and O18's excerpts hold no loader lines, so only the first. */
static void reproduce(int from_lines)
{
    for (size_t i = 0; i < sizeof logs / sizeof logs[0]; i++) {
        char log[512], model[512];
        snprintf(log, sizeof log, "%s%s", LOGS, logs[i].log);
        snprintf(model, sizeof model, "%s%s.gguf", MODELS, logs[i].model);
        if (from_lines && (strcmp(logs[i].log, "ollama-o13.log") == 0 ||
                           strcmp(logs[i].log, "ollama-o18.log") == 0))
            continue; /* excerpts without the loader's lines */
        run_result r;
        if (from_lines)
            run_kvcalc((const char *const[]){"--from-log", log, NULL}, &r);
        else
            run_kvcalc((const char *const[]){"--from-log", log, "--model", model, NULL}, &r);
        if (r.status != 0)
            fail_msg("%s: exit %d: %s", logs[i].log, r.status, r.err);
        int rows = 0, equal = 0;
        for (const char *p = r.out; (p = strstr(p, "from the logged settings:")) != NULL; p++) {
            rows++;
            equal += strncmp(p, "from the logged settings: equal", 31) == 0;
        }
        double kv_logged, kv, full_logged, full;
        assert_int_equal(row_values(r.out, "memory.required.kv", &kv_logged, &kv), 0);
        assert_int_equal(row_values(r.out, "memory.required.full", &full_logged, &full), 0);
        print_message("  %s%s: %d rows, %d equal to the log's rounding; kv %.1f / %.1f MiB, "
                      "full %.2f / %.2f GiB (%+.2f%%)\n",
                      logs[i].log, from_lines ? " (its lines)" : "", rows, equal, kv_logged / MIB, kv / MIB, full_logged / GIB,
                      full / GIB, (full - full_logged) / full_logged * 100);
        if (rows != logs[i].rows || equal != rows)
            fail_msg("%s: %d rows, %d equal:\n%s", logs[i].log, rows, equal, r.out);
        /* memory.required.kv exactly (to its print), memory.required.full within 2% */
        if (fabs(kv - kv_logged) > 0.05 * (kv_logged >= GIB ? GIB : MIB) ||
            fabs(full - full_logged) > 0.02 * full_logged)
            fail_msg("%s:\n%s", logs[i].log, r.out);
        assert_non_null(strstr(r.out, ": Ollama "));
        if (from_lines)
            assert_non_null(strstr(r.out, "\nkvcalc's model: llama "));
        run_free(&r);
        if (from_lines)
            continue;
        /* the figures docs/ollama.md quotes for this log: its KV and kvcalc's full */
        char id[8], want[64], got[64];
        snprintf(id, sizeof id, "| O%c%c ", logs[i].log[8], logs[i].log[9]);
        char *doc = read_file(KVCALC_SOURCE_DIR "/docs/ollama.md", NULL);
        assert_non_null(doc);
        const char *row = strstr(doc, id);
        if (!row)
            fail_msg("docs/ollama.md has no row %s", id);
        const char *eol = strchr(row, '\n'), *slash = row;
        for (const char *q = row; q < eol; q++)
            if (*q == '/')
                slash = q;
        snprintf(want, sizeof want, "/ %.2f GiB |", full / GIB);
        kv_ollama_human_bytes2(kv, got, sizeof got);
        if (strncmp(slash, want, strlen(want)) != 0 || !strstr(row, got) || strstr(row, got) > eol)
            fail_msg("docs/ollama.md's row %s: want KV %s and %s", id, got, want);
        free(doc);
    }
}

static void real_logs_reproduced(void **state)
{
    (void)state;
    reproduce(0);
}

static void real_logs_describe_their_models(void **state)
{
    (void)state;
    reproduce(1);
    /* a log of Ollama's own engine prints no loader lines: kvcalc says what is missing */
    run_result r;
    run_kvcalc((const char *const[]){"--from-log", LOGS "ollama-o11.log", NULL}, &r);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "which kvcalc cannot resolve (nor do its lines describe it: "
                                  "no block_count line): give --model or --config\n"));
    run_free(&r);
    /* the described model is labelled an estimate */
    EXPECT_STDOUT("true\n", "--from-log", LOGS "ollama-o10.log", "--get", "ollama_model_from_log");
}

/* Every command of docs/ollama.md runs (from the source folder, the build's files where it
 * names build/), and the layer counts it quotes are the ones printed. */
static void doc_commands_run(void **state)
{
    (void)state;
    char *doc = read_file(KVCALC_SOURCE_DIR "/docs/ollama.md", NULL);
    assert_non_null(doc);
    int n = 0, in_sh = 0;
    for (char *line = strtok(doc, "\n"); line; line = strtok(NULL, "\n")) {
        if (strncmp(line, "```", 3) == 0)
            in_sh = strcmp(line, "```sh") == 0;
        if (!in_sh || strncmp(line, "kvcalc ", 7) != 0)
            continue;
        const char *argv[40];
        static char words[40][512];
        size_t k = 0;
        for (char *w = line + 7; *w && k < 39;) {
            size_t len = strcspn(w, " ");
            if (strncmp(w, "build/tests/", 12) == 0) /* the build folder's files */
                snprintf(words[k], sizeof words[k], "%s/%.*s", KVCALC_BINARY_DIR, (int)len - 12,
                         w + 12);
            else if (strncmp(w, "tests/", 6) == 0)
                snprintf(words[k], sizeof words[k], "%s/%.*s", KVCALC_SOURCE_DIR, (int)len, w);
            else
                snprintf(words[k], sizeof words[k], "%.*s", (int)len, w);
            argv[k] = words[k];
            k++;
            w += len;
            while (*w == ' ')
                w++;
        }
        argv[k] = NULL;
        run_result r;
        run_kvcalc(argv, &r);
        if (r.status != 0)
            fail_msg("%s: exit %d: %s", line, r.status, r.err);
        if (strstr(line, "--get ollama_layers_offload"))
            assert_string_equal(r.out, "28\n"); /* "28 of 33 layers on an 8 GiB card" */
        run_free(&r);
        n++;
    }
    assert_int_equal(n, 5);
    free(doc);
    /* ... and f16's 20 */
    EXPECT_STDOUT("20\n", "--engine", "ollama", "--model", MODELS "llama3.1-8b-q4_k_m.gguf",
                  "--ollama-version", "0.12.3", "--num-ctx", "32768", "--flash-attention", "1",
                  "--gpu-mem-gib", "8", "--get", "ollama_layers_offload");
}

/* What the reader takes from a log (through kvcalc.h), and the engine it picks. */
static void log_values(void **state)
{
    (void)state;
    char err[512];
    assert_int_equal(kv_log_read_file(LOGS "ollama-o02.log", "o02", &lg, err, sizeof err), KV_OK);
    const kv_log_values *v = &lg.values;
    assert_int_equal(lg.engine, KV_ENGINE_OLLAMA); /* not llama.cpp, whose lines it holds */
    assert_string_equal(v->version, "0.5.4-0-g2ddc32d-dirty");
    assert_string_equal(v->era, "offload to");
    assert_true(v->v[KV_OLLAMA_LOG_KV_SIZE] == 8192 && v->v[KV_OLLAMA_LOG_PARALLEL] == 4);
    assert_true(v->v[KV_OLLAMA_LOG_LIBRARY] == KV_OLLAMA_CUDA);
    assert_true(v->v[KV_OLLAMA_LOG_AVAILABLE] == 23.3 * GIB);
    assert_true(v->v[KV_OLLAMA_LOG_GPU_OVERHEAD] == 0); /* "0 B" */
    assert_true(v->v[KV_OLLAMA_LOG_REQUESTED] == -1);
    assert_true(v->v[KV_OLLAMA_LOG_WEIGHTS_NONREPEATING] == 411.0 * MIB);
    assert_true(v->v[KV_OLLAMA_LOG_RUNNER_KV] == 1024 * MIB);
    assert_string_equal(v->model, "/runpod-volume/blobs/sha256-667b0c1932bc6ffc593ed1d03f895bf2d"
                                  "c8dc6df21db3042284a6f4416b06a29");
    kv_log_inputs in;
    kv_log_inputs_of(&lg, &in);
    int num_ctx = 0, version = 0;
    for (size_t i = 0; i < in.n; i++) {
        if (strcmp(in.item[i].param->name, "num-ctx") == 0)
            num_ctx = atoi(in.item[i].text); /* the runner's 8192 over its 4 sequences */
        if (strcmp(in.item[i].param->name, "ollama-version") == 0)
            version = 1;
    }
    assert_int_equal(num_ctx, 2048);
    assert_int_equal(version, 1);

    /* 0.12.3: the runner's load request; the server config; a CPU */
    assert_int_equal(kv_log_read_file(LOGS "ollama-o12.log", "o12", &lg, err, sizeof err), KV_OK);
    assert_int_equal(lg.engine, KV_ENGINE_OLLAMA);
    assert_true(v->v[KV_OLLAMA_LOG_KV_SIZE] == 4096 && v->v[KV_OLLAMA_LOG_PARALLEL] == 1);
    assert_true(v->v[KV_OLLAMA_LOG_FLASH] == 0 && v->v[KV_OLLAMA_LOG_ENV_CTX] == 4096);
    assert_true(v->v[KV_OLLAMA_LOG_LIBRARY] == KV_OLLAMA_CPU);
    assert_true(v->v[KV_OLLAMA_LOG_GPU_OVERHEAD] == 0); /* the server config's; the offload
                                                         line's is cut across two lines */
    assert_false(v->present[KV_OLLAMA_LOG_WEIGHTS_NONREPEATING]); /* cut there too */
    assert_string_equal(kv_log_field_name(KV_ENGINE_OLLAMA, KV_OLLAMA_LOG_KV), "required_kv");

    /* gpt-oss on Ollama's own engine (0.11.10): the devices' lines, summed */
    assert_int_equal(kv_log_read_file(LOGS "ollama-o11.log", "o11", &lg, err, sizeof err), KV_OK);
    assert_true(v->v[KV_OLLAMA_LOG_DEVICE_WEIGHTS] == (59.8 + 1.1) * GIB);
    assert_true(fabs(v->v[KV_OLLAMA_LOG_DEVICE_GRAPH] - (121.8 + 5.6) * MIB) < 1);
    assert_true(v->v[KV_OLLAMA_LOG_DEVICE_KV] == 450 * MIB);
    assert_true(v->v[KV_OLLAMA_LOG_FLASH] == 1); /* FlashAttention:true */

    /* three GPUs: the list's length */
    assert_int_equal(kv_log_read_file(LOGS "ollama-o18.log", "o18", &lg, err, sizeof err), KV_OK);
    assert_true(v->v[KV_OLLAMA_LOG_GPUS] == 3 && v->v[KV_OLLAMA_LOG_AVAILABLE] == 23.5 * GIB);
    assert_true(v->v[KV_OLLAMA_LOG_ALLOCATION] == 16.6 * GIB); /* the first */

    /* a llama.cpp log stays llama.cpp's, one run or two */
    assert_int_equal(kv_log_read_file(LOGS "llamacpp-l01-l02.log", "l", &lg, err, sizeof err), KV_OK);
    assert_int_equal(lg.engine, KV_ENGINE_LLAMACPP);
    assert_int_equal(kv_log_read_file(LOGS "llamacpp-l08.log", "l", &lg, err, sizeof err), KV_OK);
    assert_int_equal(lg.engine, KV_ENGINE_LLAMACPP);
}

/* ---- the estimate by hand (v0.9.6 unless said) -------------------------------------- */

/* Llama-3-8B Q4_0: a block is attn_q + attn_output 4096 x 4096 Q4_0 (2 x 9,437,184 B),
 * attn_k + attn_v 4096 x 1024 (2 x 2,359,296), gate, up, down 4096 x 14336 (3 x 33,030,144)
 * and two f32 norms (32,768): 122,716,160 B. The output layer: output Q6_K 4096 x 128256
 * (525,336,576 / 256 x 210 = 430,940,160) + output_norm (16,384). */
#define W_BLOCK 122716160.0
#define W_OUTPUT 430956544.0
/* KV of one layer at 8192 tokens: 8192 x (128 + 128) x 8 heads x 2 B */
#define K_8192 33554432.0
/* llama's full graph at context 8192, batch 512: 4 x 512 x (1 + 4 x 4096 + 8192 x 33) */
#define GRAPH_FULL_8192 587204608.0
#define MINIMUM (457 * MIB)

static void estimate_closed_form(void **state)
{
    (void)state;
    kv_spec s;
    kv_result r;
    spec_of("llama3-8b-q4_0", 906, &s);
    s.ollama.num_ctx = KV_SOME_INT(4096);
    s.ollama.num_parallel = KV_SOME_INT(2);
    s.ollama.library = KV_SOME_INT(KV_OLLAMA_CPU);
    s.gpu_mem_gib = 7.7;
    s.ollama.available_gib = KV_SOME_NUM(6.5); /* ollama-o10.log */
    compute(&s, &r);
    const kv_ollama_result *o = &r.ollama;
    assert_true(o->kv_bytes == 32 * K_8192);
    assert_true(o->graph_full_bytes == GRAPH_FULL_8192);
    /* CPU: no minimum; the buffer (blk.0 + its KV) and every layer and the output */
    double full = (W_BLOCK + K_8192) + 32 * (W_BLOCK + K_8192) + W_OUTPUT + GRAPH_FULL_8192;
    assert_true(o->required_full_bytes == full); /* 6,175,090,688 B: "5.8 GiB" */
    expect_hb2(o->required_full_bytes, "5.8 GiB");
    assert_true(o->required_partial_bytes == 0 && o->layers_offload == 0);
    assert_int_equal(o->gpu_percent, 0);

    /* a GPU adds its minimum; with 23.3 GiB free all 33 layers go there */
    s.ollama.library = KV_SOME_INT(KV_OLLAMA_CUDA);
    s.ollama.available_gib = KV_SOME_NUM(23.3);
    compute(&s, &r);
    assert_true(o->required_full_bytes == full + MINIMUM);
    assert_true(o->required_partial_bytes == full + MINIMUM);
    assert_int_equal(o->layers_offload, 33);
    assert_int_equal(o->gpu_percent, 100);

    /* ten layers' room: F = minimum + buffer + the larger graph + 10 layers + 1 byte. A layer
     * goes to the GPU while F > used + graph + it, so the eleventh does not, and the GPU is
     * dropped: the output stays on the CPU, and the graph counted is the partial one. */
    double ls = W_BLOCK + K_8192, gp = o->graph_partial_bytes;
    assert_true(gp > GRAPH_FULL_8192);
    double f = MINIMUM + ls + gp + 10 * ls + 1;
    s.ollama.available_gib = KV_SOME_NUM(f / GIB);
    compute(&s, &r);
    assert_true(o->available_bytes == f);
    assert_int_equal(o->layers_offload, 10);
    assert_false(o->fully_loaded);
    assert_true(o->required_partial_bytes == MINIMUM + ls + 10 * ls + gp);
    assert_true(o->required_full_bytes == o->required_partial_bytes + 22 * ls + W_OUTPUT);
    /* ollama ps: round(CPU share x 100) */
    int cpu = (int)round((o->required_full_bytes - o->required_partial_bytes) /
                         o->required_full_bytes * 100);
    assert_int_equal(o->gpu_percent, 100 - cpu);

    /* before 0.7.0 the layers go first to last and the overflow is the last size x the
     * layers left: the same here, as every layer is alike */
    s.ollama.version = 606;
    compute(&s, &r);
    assert_int_equal(o->layers_offload, 10);
    /* before 0.6.1 the logged weights hold the KV (memoryWeights += blk + kv / layers) */
    s.ollama.version = 600;
    compute(&s, &r);
    assert_true(o->weights_total_bytes == 32 * (W_BLOCK + K_8192 / 1));
    assert_true(o->weights_repeating_logged_bytes == 32 * (W_BLOCK + K_8192) - W_OUTPUT);
}

/* Several GPUs (0.9.6): each admitted, the layers round robin (gpusWithSpace[i % j]), the
 * partial graph on each. Two GPUs of 4 GiB: a GPU holds k + 1 layers while (k + 1) x layer <
 * 4 GiB - minimum - buffer - graph = 2,949,111,808 B: 18; 16 each, the output on GPU 0
 * (layerCount 32 % 2). */
static void several_gpus_by_hand(void **state)
{
    (void)state;
    kv_spec s;
    kv_result r;
    spec_of("llama3-8b-q4_0", 906, &s);
    s.ollama.num_ctx = KV_SOME_INT(8192);
    s.ollama.num_parallel = KV_SOME_INT(1);
    s.ollama.gpus = 2;
    s.ollama.available_gib = KV_SOME_NUM(4);
    compute(&s, &r);
    const kv_ollama_result *o = &r.ollama;
    double ls = W_BLOCK + K_8192, gp = o->graph_partial_bytes;
    assert_true(o->graph_full_bytes == gp); /* "multigpu should always use the partial" */
    assert_int_equal(o->gpu_layer_counts[0], 17);
    assert_int_equal(o->gpu_layer_counts[1], 16);
    assert_true(o->gpu_allocations[0] == MINIMUM + ls + 16 * ls + W_OUTPUT + gp);
    assert_true(o->gpu_allocations[1] == MINIMUM + ls + 16 * ls + gp);
    assert_true(o->required_full_bytes == o->gpu_allocations[0] + o->gpu_allocations[1]);

    /* ollama-o18.log's offload line, key for key, from its three GPUs */
    run_result rr;
    run_kvcalc((const char *const[]){"--engine", "ollama", "--model", MODELS "llama3-70b-q4_k_m.gguf",
                                     "--ollama-version", "0.5.11", "--ollama-gpus", "3",
                                     "--available-gib", "23.5", "--num-ctx", "2048",
                                     "--num-parallel", "4", NULL},
               &rr);
    assert_int_equal(rr.status, 0);
    char *log = read_file(LOGS "ollama-o18.log", NULL);
    assert_non_null(log);
    char *line = strstr(log, "msg=\"offload to cuda\"");
    assert_non_null(line);
    *strchr(line, '\n') = '\0';
    char want[2048];
    snprintf(want, sizeof want, "\n%s\n", line);
    if (!strstr(rr.out, want))
        fail_msg("the log's line\n%s\nis not in\n%s", line, rr.out);
    free(log);
    run_free(&rr);

    /* from 0.12.11 kvcalc models one GPU */
    s.ollama.version = 1211;
    assert_int_equal(kv_compute(&s, &r), KV_ERR_ENGINE_INPUT);
}

/* A vision projector (0.9.6): the model file's own (a graph given) goes with the output
 * layer, a --mmproj file's weights on the first GPU; before 0.7.1 its weights and graph on
 * the first GPU, and at least 2048 tokens counted. */
static void projector_by_hand(void **state)
{
    (void)state;
    kv_spec s;
    kv_result r;
    const kv_ollama_result *o = &r.ollama;
    double full = (W_BLOCK + K_8192) + 32 * (W_BLOCK + K_8192) + W_OUTPUT + GRAPH_FULL_8192 +
                  MINIMUM; /* estimate_closed_form's, on a GPU */
    static const int versions[] = {906, 504};
    for (size_t i = 0; i < 2; i++) {
        spec_of("llama3-8b-q4_0", versions[i], &s);
        s.ollama.num_ctx = KV_SOME_INT(4096);
        s.ollama.num_parallel = KV_SOME_INT(2);
        s.ollama.available_gib = KV_SOME_NUM(23.3);
        s.ollama.projector_weights_gib = KV_SOME_NUM(1);
        s.ollama.projector_graph_gib = KV_SOME_NUM(0.5);
        compute(&s, &r);
        assert_true(o->required_full_bytes == full + 1.5 * GIB);
        assert_true(o->required_partial_bytes == o->required_full_bytes);
        s.ollama.projector_graph_gib = KV_NONE_NUM; /* a file: its weights (and graph: 0) */
        compute(&s, &r);
        assert_true(o->required_full_bytes == full + 1 * GIB);
    }
    /* before 0.7.1 the projector raises the estimate's context to 2048 */
    s.ollama.num_ctx = KV_SOME_INT(512);
    s.ollama.num_parallel = KV_SOME_INT(1);
    compute(&s, &r);
    assert_int_equal(o->estimate_ctx, 2048);
    s.ollama.projector_weights_gib = KV_NONE_NUM;
    compute(&s, &r);
    assert_int_equal(o->estimate_ctx, 512);
    /* the group in the offload line: first before 0.5.12, last after */
    const char *m = MODELS "llama3-8b-q4_0.gguf";
    static const struct {
        const char *version, *want;
    } lines[] = {
        {"0.5.4", "\nmsg=\"offload to cuda\" projector.weights=\"1.8 GiB\" projector.graph=\"2.8 "
                  "GiB\" layers.requested=-1 "},
        {"0.9.6", "memory.graph.partial=\"677.5 MiB\" projector.weights=\"1.8 GiB\" "
                  "projector.graph=\"2.8 GiB\"\n"},
    };
    for (size_t i = 0; i < 2; i++) {
        run_result rr;
        run_kvcalc((const char *const[]){"--engine", "ollama", "--model", m, "--ollama-version",
                                         lines[i].version, "--projector-weights-gib", "1.8",
                                         "--projector-graph-gib", "2.8", NULL},
                   &rr);
        assert_int_equal(rr.status, 0);
        if (!strstr(rr.out, lines[i].want))
            fail_msg("%s:\n%s", lines[i].version, rr.out);
        run_free(&rr);
    }
}

static void layout_by_hand(void **state)
{
    (void)state;
    kv_spec s;
    kv_result r;
    spec_of("llama3-8b-q4_0", 2400, &s);
    s.ollama.num_ctx = KV_SOME_INT(8192);
    s.ollama.available_gib = KV_SOME_NUM(23.3);
    compute(&s, &r);
    const kv_ollama_result *o = &r.ollama;
    /* the layout of 0.12.11+: "total memory" = the layers, the output and the graph; no
     * minimum, no buffer */
    assert_int_equal(o->era, KV_OLLAMA_LAYOUT);
    assert_int_equal(o->num_parallel, 1);
    assert_true(o->required_full_bytes == 32 * (W_BLOCK + K_8192) + W_OUTPUT + GRAPH_FULL_8192);
    assert_true(o->gpu_kv_bytes == 32 * K_8192 && o->cpu_kv_bytes == 0);
    assert_int_equal(o->flash_auto, 1); /* OLLAMA_FLASH_ATTENTION unset: the runner's call */

    /* room for the output and about twelve layers beside the buffer, the minimum and the
     * larger graph: not everything, so the output stays on the CPU and the layers fill
     * from the top: (W_OUTPUT + 10 layers) / layer = 12.76 layers */
    double ls = W_BLOCK + K_8192, gmax = fmax(o->graph_full_bytes, o->graph_partial_bytes);
    double f = ls /* buffer */ + MINIMUM + gmax + W_OUTPUT + 10 * ls - 65536;
    s.ollama.available_gib = KV_SOME_NUM(f / GIB);
    compute(&s, &r);
    assert_int_equal(o->layers_offload, 12);
    assert_false(o->fully_loaded);
    assert_true(o->gpu_weights_bytes == 12 * W_BLOCK);
    assert_true(o->cpu_weights_bytes == 20 * W_BLOCK + W_OUTPUT);
    assert_true(o->gpu_graph_bytes == o->graph_partial_bytes);
    assert_true(o->required_partial_bytes == 12 * ls + o->graph_partial_bytes);
    assert_true(o->required_full_bytes == 32 * ls + W_OUTPUT + o->graph_partial_bytes);

    /* on the CPU: no graph at all */
    s.ollama.library = KV_SOME_INT(KV_OLLAMA_CPU);
    compute(&s, &r);
    assert_true(o->required_full_bytes == 32 * ls + W_OUTPUT);
    assert_true(o->required_partial_bytes == 0);
}

static void defaults_by_release(void **state)
{
    (void)state;
    kv_spec s;
    kv_result r;
    const kv_ollama_result *o = &r.ollama;
    static const struct {
        int version;
        double gpu_gib;
        int64_t num_ctx, parallel;
    } cases[] = {
        {148, 24, 2048, 1},  /* no auto parallel before 0.2.0 */
        {606, 24, 2048, 4},  /* 2048 tokens, the scheduler's 4 */
        {607, 24, 4096, 2},  /* 44b466ee, fe5b9bb2 */
        {1000, 24, 4096, 1}, /* 20c3266e */
        {1504, 48, 4096, 1},
        {1505, 22, 4096, 1},  /* 0334ffa6: by total VRAM: below 23 GiB */
        {1505, 24, 8192, 1},  /* 32768, cut to Llama 3's context_length 8192 */
        {3215, 24, 8192, 1},  /* llama-server: the same defaults */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        spec_of("llama3-8b-q4_0", cases[i].version, &s);
        s.gpu_mem_gib = cases[i].gpu_gib;
        compute(&s, &r);
        if (o->num_ctx != cases[i].num_ctx || o->num_parallel != cases[i].parallel)
            fail_msg("0.%d.%d on %g GiB: num_ctx %lld parallel %lld", cases[i].version / 100,
                     cases[i].version % 100, cases[i].gpu_gib, (long long)o->num_ctx,
                     (long long)o->num_parallel);
    }
    /* 0.9.6's auto parallel: 2 unless the model then does not fit the GPU, then 1; on the
     * CPU always 2 */
    spec_of("llama3-8b-q4_0", 906, &s);
    s.ollama.num_ctx = KV_SOME_INT(8192);
    s.ollama.available_gib = KV_SOME_NUM(7.5);
    compute(&s, &r);
    assert_int_equal(o->num_parallel, 1);
    assert_int_equal(o->parallel_auto, 1);
    s.ollama.available_gib = KV_SOME_NUM(9);
    compute(&s, &r);
    assert_int_equal(o->num_parallel, 2);
    s.ollama.available_gib = KV_SOME_NUM(7.5);
    s.ollama.library = KV_SOME_INT(KV_OLLAMA_CPU);
    compute(&s, &r);
    assert_int_equal(o->num_parallel, 2);
    /* 0.7.1 - 0.11.4: the estimate counts at least 2048 tokens */
    spec_of("llama3-8b-q4_0", 1000, &s);
    s.ollama.num_ctx = KV_SOME_INT(512);
    compute(&s, &r);
    assert_int_equal(o->kv_size, 512);
    assert_int_equal(o->estimate_ctx, 2048);
    assert_true(o->kv_bytes == 32 * K_8192 / 4);
    s.ollama.version = 1105;
    compute(&s, &r);
    assert_int_equal(o->estimate_ctx, 512);
}

static void flash_attention_and_cache_type(void **state)
{
    (void)state;
    kv_spec s;
    kv_result r;
    const kv_ollama_result *o = &r.ollama;
    spec_of("llama3-8b-q4_0", 906, &s);
    s.ollama.num_ctx = KV_SOME_INT(8192);
    s.ollama.num_parallel = KV_SOME_INT(1);
    s.ollama.flash_attention = KV_SOME_INT(1);
    s.ollama.kv_cache_type = KV_SOME_INT(KV_OLLAMA_Q8_0);
    compute(&s, &r);
    assert_true(o->flash && o->cache_type == KV_OLLAMA_Q8_0);
    assert_true(o->kv_bytes == 32 * K_8192 / 2); /* 1 B per element, not 34/32 */
    /* 0.9.6 on the CPU: no flash attention, so f16 */
    s.ollama.library = KV_SOME_INT(KV_OLLAMA_CPU);
    compute(&s, &r);
    assert_true(o->flash_refused && o->cache_type_refused && o->kv_bytes == 32 * K_8192);
    /* from 0.12.4 the CPU takes it */
    s.ollama.version = 1204;
    compute(&s, &r);
    assert_true(o->flash && o->kv_bytes == 32 * K_8192 / 2);
    /* from 0.13.4 an unset OLLAMA_FLASH_ATTENTION leaves it to the runner: f16 */
    s.ollama.version = 1304;
    s.ollama.flash_attention = KV_NONE_INT;
    compute(&s, &r);
    assert_true(o->flash_auto && o->cache_type == KV_OLLAMA_F16 && o->cache_type_refused);
    /* q4_0: half a byte */
    s.ollama.flash_attention = KV_SOME_INT(1);
    s.ollama.kv_cache_type = KV_SOME_INT(KV_OLLAMA_Q4_0);
    compute(&s, &r);
    assert_true(o->kv_bytes == 32 * K_8192 / 4);
}

/* The architectures' own rows, against the logs of two models on Ollama's own engine, with
 * the geometry of their public config.json files (tests/fixtures: gemma-3-27b-it and
 * gpt-oss-120b). */
static void arch_rows_against_logs(void **state)
{
    (void)state;
    kv_spec s;
    kv_result r;
    kv_model_info info;
    char err[256];
    const kv_ollama_result *o = &r.ollama;
    /* Gemma 3 27B (ollama-o09.log: 0.9.6, num_ctx 4096 x 2): 62 layers, 16 KV heads of 128,
     * window 1024; every 6th layer keeps the context, the others 2 x 1024 + 512:
     * 10 x 8192 x 8192 B + 52 x 2560 x 8192 B = 1.64 GiB; graph.full: 4 x 512 x (2 + 8192 +
     * 8192 x 32 + 2 x 5376 + 2 x 128 x 32) = 592,449,536 B = 565.0 MiB */
    gguf_writer w;
    size_t len;
    gw_init(&w);
    gw_str(&w, "general.architecture", "gemma3");
    gw_u32(&w, "gemma3.block_count", 62);
    gw_u32(&w, "gemma3.context_length", 131072);
    gw_u32(&w, "gemma3.embedding_length", 5376);
    gw_u32(&w, "gemma3.attention.head_count", 32);
    gw_u32(&w, "gemma3.attention.head_count_kv", 16);
    gw_u32(&w, "gemma3.attention.key_length", 128);
    gw_u32(&w, "gemma3.attention.value_length", 128);
    gw_u32(&w, "gemma3.attention.sliding_window", 1024);
    unsigned char *p = gw_finish(&w, 3, 0, &len);
    kv_spec_defaults(&s);
    assert_int_equal(kv_gguf_read(p, len, "gemma3", &s, &info, &g, err, sizeof err), KV_OK);
    free(p);
    gw_free(&w);
    s.gguf = &g;
    kv_spec_set_engine(&s, KV_ENGINE_OLLAMA);
    s.ollama.version = 906;
    s.ollama.num_ctx = KV_SOME_INT(4096);
    s.ollama.num_parallel = KV_SOME_INT(2);
    s.ollama.library = KV_SOME_INT(KV_OLLAMA_ROCM);
    s.ollama.available_gib = KV_SOME_NUM(33.6);
    compute(&s, &r);
    assert_true(o->kv_bytes == 10 * 8192.0 * 8192 + 52 * 2560.0 * 8192);
    expect_hb2(o->kv_bytes, "1.6 GiB");
    assert_true(o->graph_full_bytes == 592449536.0);
    expect_hb2(o->graph_full_bytes, "565.0 MiB");

    /* gpt-oss-120b (ollama-o11.log: 0.11.10, KvSize 8192, flash attention): 36 layers, 8
     * KV heads of 64; even layers 4096 + 512 tokens, odd ones 8192: 18 x (4608 + 8192) x
     * 1024 x 2 B = 450.0 MiB; the flash-attention graph (4 x 1 + 8192 >> 10 + 110) MiB */
    gw_init(&w);
    gw_str(&w, "general.architecture", "gptoss");
    gw_u32(&w, "gptoss.block_count", 36);
    gw_u32(&w, "gptoss.context_length", 131072);
    gw_u32(&w, "gptoss.embedding_length", 2880);
    gw_u32(&w, "gptoss.attention.head_count", 64);
    gw_u32(&w, "gptoss.attention.head_count_kv", 8);
    gw_u32(&w, "gptoss.attention.key_length", 64);
    gw_u32(&w, "gptoss.attention.value_length", 64);
    p = gw_finish(&w, 3, 0, &len);
    kv_spec_defaults(&s);
    assert_int_equal(kv_gguf_read(p, len, "gptoss", &s, &info, &g, err, sizeof err), KV_OK);
    free(p);
    gw_free(&w);
    s.gguf = &g;
    kv_spec_set_engine(&s, KV_ENGINE_OLLAMA);
    s.ollama.version = 1110;
    s.ollama.num_ctx = KV_SOME_INT(8192);
    s.ollama.library = KV_SOME_INT(KV_OLLAMA_ROCM);
    s.gpu_mem_gib = 64;
    compute(&s, &r);
    assert_int_equal(o->num_parallel, 1);
    assert_true(o->flash); /* gpt-oss's own default from 0.11.8 */
    assert_true(o->kv_bytes == 18 * (4608.0 + 8192) * 1024 * 2);
    expect_hb2(o->kv_bytes, "450.0 MiB");
    assert_true(o->graph_partial_bytes == 122 * MIB);
    expect_hb2(o->graph_full_bytes, "122.0 MiB");
    assert_int_equal(o->measured_by_runner, 0); /* before 0.11.11 the estimate is the one */
    s.ollama.version = 1111;
    compute(&s, &r);
    assert_int_equal(o->measured_by_runner, 1);
    assert_int_equal(o->estimated, 1);
}

/* From 0.30 the runner is llama-server: Ollama's figures are llama.cpp's for the flags it
 * passes (-c num_ctx x np, -np np, --flash-attn, -b = -ub, the build it pins). */
static void llama_server_is_llamacpp(void **state)
{
    (void)state;
    static const struct {
        int version;
        int64_t num_ctx, parallel, batch, build;
        int fa; /* -1: not set */
        int type;
    } cases[] = {
        {3000, 8192, 1, 512, 9452, -1, -1},
        {3215, 32768, 2, 1024, 10488, 1, KV_OLLAMA_Q8_0},
        {3100, 4096, 4, 2048, 9840, 0, -1},
        {3300, 131072, 1, 512, 10488, -1, KV_OLLAMA_Q4_0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kv_spec s, l;
        kv_result r, lr;
        spec_of("llama3.1-8b-q4_k_m", cases[i].version, &s);
        s.gpu_mem_gib = 24;
        s.ollama.num_ctx = KV_SOME_INT(cases[i].num_ctx);
        s.ollama.num_parallel = KV_SOME_INT(cases[i].parallel);
        s.ollama.num_batch = KV_SOME_INT(cases[i].batch);
        if (cases[i].fa >= 0)
            s.ollama.flash_attention = KV_SOME_INT(cases[i].fa);
        if (cases[i].type >= 0)
            s.ollama.kv_cache_type = KV_SOME_INT(cases[i].type);
        compute(&s, &r);
        l = s;
        kv_spec_set_engine(&l, KV_ENGINE_LLAMACPP);
        l.gguf = &g;
        l.llamacpp.build = cases[i].build;
        l.llamacpp.ctx_size = KV_SOME_INT(cases[i].num_ctx * cases[i].parallel);
        l.llamacpp.parallel = KV_SOME_INT(cases[i].parallel);
        l.llamacpp.flash_attn = KV_SOME_INT(cases[i].fa == 1   ? KV_FLASH_ON
                                            : cases[i].fa == 0 ? KV_FLASH_OFF
                                                               : KV_FLASH_AUTO);
        l.llamacpp.batch_size = l.llamacpp.ubatch_size = cases[i].batch;
        if (cases[i].type >= 0) {
            int t = cases[i].type == KV_OLLAMA_Q8_0 ? KV_GGML_Q8_0 : KV_GGML_Q4_0;
            l.llamacpp.type_k = l.llamacpp.type_v = KV_SOME_INT(t);
        }
        compute(&l, &lr);
        const kv_ollama_result *o = &r.ollama;
        assert_int_equal(o->era, KV_OLLAMA_LLAMA_SERVER);
        assert_int_equal(o->llamacpp_build, cases[i].build);
        assert_int_equal(o->server.n_ctx, lr.llamacpp.n_ctx);
        assert_true(o->server.main.k_bytes == lr.llamacpp.main.k_bytes);
        assert_true(o->server.main.v_bytes == lr.llamacpp.main.v_bytes);
        assert_true(o->kv_bytes == lr.kv_cache_bytes);
        assert_int_equal(o->server.fits_gpu, lr.llamacpp.fits_gpu);
        assert_true(r.max_concurrency == (double)cases[i].parallel); /* 4,096-token requests */
    }
}

/* A measured free memory carried to another GPU moves as kvcalc's estimate of it does. */
static void relayout_keeps_the_reading(void **state)
{
    (void)state;
    kv_spec s, to;
    kv_result a, b;
    spec_of("llama3-8b-q4_0", 906, &s);
    s.gpu_mem_gib = 24;
    s.ollama.available_gib = KV_SOME_NUM(23.3); /* 0.7 GiB under the GPU's 24 */
    to = s;
    to.gpu_mem_gib = 16;
    kv_relayout(&s, &to);
    assert_true(to.ollama.available_gib.set);
    assert_true(fabs(to.ollama.available_gib.value - 15.3) < 1e-9);
    compute(&s, &a);
    compute(&to, &b);
    assert_true(b.ollama.available_bytes < a.ollama.available_bytes);
}

static void text_lines_by_release(void **state)
{
    (void)state;
    const char *m = MODELS "llama3-8b-q4_0.gguf";
    run_result r;
    run_kvcalc((const char *const[]){"--engine", "ollama", "--model", m, "--ollama-version",
                                     "0.5.11", "--num-ctx", "2048", "--num-parallel", "4",
                                     "--available-gib", "23.3", NULL},
               &r);
    assert_int_equal(r.status, 0);
    /* before 0.5.12: the message names the library, no library= key */
    assert_non_null(strstr(r.out, "\nmsg=\"offload to cuda\" layers.requested=-1 layers.model=33 "
                                  "layers.offload=33 layers.split=\"\" memory.available=\"[23.3 "
                                  "GiB]\" memory.gpu_overhead=\"0 B\" memory.required.full="));
    assert_non_null(strstr(r.out, "memory.required.kv=\"1.0 GiB\""));
    assert_non_null(strstr(r.out, "(by Ollama's rules"));
    /* 457 MiB + 33 x (122,716,160 + 33,554,432) + 430,956,544 + 587,204,608 B = 6.65 GB */
    assert_non_null(strstr(r.out, "ollama ps: SIZE 6.7 GB, PROCESSOR 100% GPU\n"));
    assert_non_null(strstr(r.out, "(the 0 GiB reserve is Ollama's default"));
    run_free(&r);

    run_kvcalc((const char *const[]){"--engine", "ollama", "--model", m, "--ollama-version",
                                     "0.24.0", "--context", "8192", "--gpu-mem-gib", "16", NULL},
               &r);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\nmsg=\"loading model\" \"model layers\"=33 requested=-1\n"
                                  "msg=\"model weights\" device=CUDA0 size=\"4.1 GiB\"\n"
                                  "msg=\"kv cache\" device=CUDA0 size=\"512.0 MiB\"\n"));
    /* the lesson's 8,192-token request does not fit the release's num_ctx */
    assert_non_null(strstr(r.out, "0 requests of 8,192 tokens at once (Ollama cuts a prompt to "
                                  "num_ctx 4,096 tokens: set --num-ctx 8192)"));
    run_free(&r);

    EXPECT_STDOUT("4096\n", "--engine", "ollama", "--model", m, "--ollama-version", "0.12.3",
                  "--get", "ollama_num_ctx");
    EXPECT_STDOUT("0.9.6\n", "--engine", "ollama", "--model", m, "--ollama-version", "v0.9.6",
                  "--get", "engine_version");
}

static void refusals(void **state)
{
    (void)state;
    static const struct {
        const char *args[12];
        const char *err;
    } cases[] = {
        {{"--engine", "ollama", "--tp", "2", NULL}, "kvcalc: --tp: Ollama places"},
        {{"--engine", "ollama", "--ollama-version", "0.27.0", NULL},
         "kvcalc: --ollama-version: kvcalc describes Ollama 0.1.48 to 0.24.x and 0.30.0"},
        {{"--engine", "ollama", "--ollama-version", "0.4.0", "--kv-cache-type", "q8_0", NULL},
         "kvcalc: --kv-cache-type: OLLAMA_KV_CACHE_TYPE exists from Ollama 0.5.0"},
        {{"--engine", "ollama", "--ollama-version", "0.3.0", "--gpu-overhead", "1000", NULL},
         "kvcalc: --gpu-overhead: OLLAMA_GPU_OVERHEAD exists from Ollama 0.3.10"},
        {{"--engine", "ollama", "--flash-attention", "on", NULL},
         "kvcalc: --flash-attention: unknown value 'on' (expected one of: 1 t T TRUE true"},
        {{"--engine", "ollama", "--dtype", "fp8", NULL}, "kvcalc: --dtype: Ollama caches in f16"},
        {{"--engine", "ollama", "--ollama-version", "0.9", NULL},
         "kvcalc: --ollama-version: expected an Ollama version such as 0.9.6"},
        {{"--num-ctx", "4096", NULL}, "kvcalc: --num-ctx: applies only with --engine ollama"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run_result r;
        run_kvcalc(cases[i].args, &r);
        if (r.status != 2 || r.out[0] || strncmp(r.err, cases[i].err, strlen(cases[i].err)) != 0 ||
            count_lines(r.err) != 2)
            fail_msg("case %zu: exit %d, stderr: %s", i, r.status, r.err);
        run_free(&r);
    }
}

/* Ollama's own engine keeps a recurrent layer's f32 conv and state rows once for every slot
 * and 24 checkpoints a slot, all reserved at load (kvcache/recurrent.go @ b5303fbf5; 32 in
 * qwen3next's own cache before 0.17.1). Three real logs of qwen3-coder-next (Qwen3-Next-80B's
 * shapes: 48 blocks, every 4th attention with 2 KV heads of 256; 36 gated delta nets with
 * conv 3 x (2 x 16 x 128 + 32 x 128) and state 32 x 128 x 128), KvSize 32768, one slot,
 * f16 / q8_0 / q4_0 (tests/logs/ollama-h01..h03-*), print their "kv cache" device lines:
 *   attention 12 x 32,768 x 2 x 2 x 256 x (2 | 34/32 | 18/32) B = 805,306,368 | 427,819,008 |
 *   226,492,416 B; states 25 x 36 x (24,576 + 524,288) x 4 B = 1,975,910,400 B;
 *   sums 2.59 GiB (logged 1.1 + 1.5), 2.24 GiB (955.2 MiB + 1.3 GiB), 2.05 GiB (875.2 MiB +
 *   1.2 GiB), each within the lines' one-decimal rounding. */
static void recurrent_checkpoints(void **state)
{
    (void)state;
    gguf_writer w;
    size_t len;
    kv_spec s;
    kv_result r;
    kv_gguf_info g;
    kv_model_info info;
    char err[512];
    gw_init(&w);
    gw_str(&w, "general.architecture", "qwen3next");
    gw_u32(&w, "qwen3next.block_count", 48);
    gw_u32(&w, "qwen3next.full_attention_interval", 4);
    gw_u32(&w, "qwen3next.context_length", 262144);
    gw_u32(&w, "qwen3next.embedding_length", 2048);
    gw_u32(&w, "qwen3next.attention.head_count", 16);
    gw_u32(&w, "qwen3next.attention.head_count_kv", 2);
    gw_u32(&w, "qwen3next.attention.key_length", 256);
    gw_u32(&w, "qwen3next.attention.value_length", 256);
    gw_u32(&w, "qwen3next.ssm.conv_kernel", 4);
    gw_u32(&w, "qwen3next.ssm.inner_size", 4096);
    gw_u32(&w, "qwen3next.ssm.state_size", 128);
    gw_u32(&w, "qwen3next.ssm.group_count", 16);
    gw_u32(&w, "qwen3next.ssm.time_step_rank", 32);
    unsigned char *p = gw_finish(&w, 3, 0, &len);
    static const struct {
        int type;
        double attention, logged_gib;
    } cases[] = {
        {KV_OLLAMA_F16, 805306368.0, 1.1 + 1.5},
        {KV_OLLAMA_Q8_0, 427819008.0, 955.2 / 1024 + 1.3},
        {KV_OLLAMA_Q4_0, 226492416.0, 875.2 / 1024 + 1.2},
    };
    const double states = 25.0 * 36 * (3 * 8192 + 32 * 128 * 128) * 4;
    assert_true(states == 1975910400.0);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kv_spec_defaults(&s);
        assert_int_equal(kv_gguf_read(p, len, "qwen3next", &s, &info, &g, err, sizeof err),
                         KV_OK);
        s.gguf = &g;
        kv_spec_set_engine(&s, KV_ENGINE_OLLAMA);
        s.ollama.version = 1701;
        s.ollama.num_ctx = KV_SOME_INT(32768);
        s.ollama.num_parallel = KV_SOME_INT(1);
        s.ollama.flash_attention = KV_SOME_INT(1);
        s.ollama.kv_cache_type = KV_SOME_INT(cases[i].type);
        s.gpu_mem_gib = 24;
        compute(&s, &r);
        assert_int_equal(r.ollama.state_checkpoints, 24);
        if (r.ollama.runner_kv_bytes != cases[i].attention + states)
            fail_msg("case %zu: %.0f, by hand %.0f", i, r.ollama.runner_kv_bytes,
                     cases[i].attention + states);
        assert_true(fabs(r.ollama.runner_kv_bytes / 1073741824.0 - cases[i].logged_gib) <= 0.1);
        assert_true(r.ollama.device_kv_bytes == r.ollama.runner_kv_bytes);
    }
    /* qwen3next's own cache before 0.17.1 kept 32 */
    s.ollama.version = 1505; /* 0.15.5 */
    compute(&s, &r);
    assert_int_equal(r.ollama.state_checkpoints, 32);
    free(p);
    /* the logs themselves, with that header as their model (they name no release: their
     * runner.go and device.go lines are the Go engine's of spring 2026) */
    char path[512];
    snprintf(path, sizeof path, KVCALC_BINARY_DIR "/qwen3next-%ld.gguf", (long)getpid());
    assert_int_equal(gw_write_file(&w, path), 0);
    gw_free(&w);
    static const char *const logs[] = {"ollama-h01-qwen3-coder-next-f16.log",
                                       "ollama-h02-qwen3-coder-next-q8_0.log",
                                       "ollama-h03-qwen3-coder-next-q4_0.log"};
    for (size_t i = 0; i < sizeof logs / sizeof logs[0]; i++) {
        char log[512];
        snprintf(log, sizeof log, LOGS "%s", logs[i]);
        run_result rr;
        run_kvcalc((const char *const[]){"--from-log", log, "--model", path, "--ollama-version",
                                         "0.17.1", NULL},
                   &rr);
        const char *row = strstr(rr.out, "\nkv cache ");
        if (rr.status != 0 || !row || !strstr(row, "equal") ||
            strstr(row, "equal") > strchr(row + 1, '\n'))
            fail_msg("%s: exit %d\n%s%s", logs[i], rr.status, rr.out, rr.err);
        run_free(&rr);
    }
    /* the text says so beside the estimate */
    run_result rt;
    run_kvcalc((const char *const[]){"--engine", "ollama", "--model", path, "--ollama-version",
                                     "0.17.1", "--num-ctx", "32768", "--num-parallel", "1",
                                     "--flash-attention", "1", NULL},
               &rt);
    if (rt.status != 0 || !strstr(rt.out, "  kv cache : 2.59 GiB as Ollama's own engine allocates "
                                          "it"))
        fail_msg("exit %d\n%s%s", rt.status, rt.out, rt.err);
    run_free(&rt);
    remove(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(models_match_their_logs),
        cmocka_unit_test(real_logs_reproduced),
        cmocka_unit_test(real_logs_describe_their_models),
        cmocka_unit_test(log_values),
        cmocka_unit_test(estimate_closed_form),
        cmocka_unit_test(several_gpus_by_hand),
        cmocka_unit_test(projector_by_hand),
        cmocka_unit_test(layout_by_hand),
        cmocka_unit_test(defaults_by_release),
        cmocka_unit_test(flash_attention_and_cache_type),
        cmocka_unit_test(arch_rows_against_logs),
        cmocka_unit_test(llama_server_is_llamacpp),
        cmocka_unit_test(relayout_keeps_the_reading),
        cmocka_unit_test(text_lines_by_release),
        cmocka_unit_test(refusals),
        cmocka_unit_test(recurrent_checkpoints),
        cmocka_unit_test(doc_commands_run),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
