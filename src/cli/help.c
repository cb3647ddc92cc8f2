/*
 * help.c - the --help text, generated from the flag table: usage and examples first, then
 * each section's flags with their defaults, wrapped at 80 columns.
 */
#include "kvprint.h"
#include "options.h"

#include "format.h"

#include <stdio.h>
#include <string.h>

#define HELP_WIDTH 80 /* columns */
#define HELP_LEFT 26  /* where a flag's description starts */

/* Writes text from column `col` on, wrapped at HELP_WIDTH at spaces, continuation lines
 * indented to `indent`; ends the line. A word longer than a line is not cut. */
static void wrap(FILE *out, size_t col, size_t indent, const char *text)
{
    while (*text) {
        size_t room = col < HELP_WIDTH ? HELP_WIDTH - col : 1, len = strlen(text), cut = len;
        if (len > room) {
            cut = room;
            while (cut > 0 && text[cut] != ' ')
                cut--;
            if (cut == 0) /* one long word: up to the next space */
                cut = strcspn(text, " ");
        }
        kv_fprintf(out, "%.*s\n", (int)cut, text);
        text += cut;
        while (*text == ' ')
            text++;
        if (*text)
            kv_fprintf(out, "%*s", (int)indent, "");
        col = indent;
    }
}

static void help_line(FILE *out, const kv_flag *f, const char *def)
{
    char left[96], text[512];
    if (f->short_name)
        kv_snprintf(left, sizeof left, "-%s, --%s%s%s", f->short_name, f->name, f->meta ? " " : "",
                 f->meta ? f->meta : "");
    else
        kv_snprintf(left, sizeof left, "--%s%s%s", f->name, f->meta ? " " : "",
                 f->meta ? f->meta : "");
    kv_snprintf(text, sizeof text, "%s%s%s%s", f->help, def ? " [" : "", def ? def : "",
             def ? "]" : "");
    if (strlen(left) + 2 >= HELP_LEFT) { /* too long: the description on its own line */
        kv_fprintf(out, "  %s\n%*s", left, HELP_LEFT, "");
    } else {
        kv_fprintf(out, "  %-*s", HELP_LEFT - 2, left);
    }
    wrap(out, HELP_LEFT, HELP_LEFT, text);
}

/* The spec's and the program's sections: their --help=NAME and their titles. */
static const struct {
    int id;
    const char *name;
    const char *title;
} fixed[] = {
    {SECTION_MODEL, "model", "Model (default: the lesson's illustrative 7B-class GQA model):"},
    {SECTION_GPU, "gpu", "GPU (default: the lesson's 48 GiB GPU with 2 GiB reserved):"},
    {SECTION_WORKLOAD, "workload", "Workload (default: 4,096-token requests, 50 sharing a "
                                   "1,024-token prefix):"},
    {SECTION_ENGINE, "engines", "Serving engines (docs/engines.md):"},
    {SECTION_PLAN, "planning", "Planning and CI:"},
    {SECTION_OUTPUT, "output", "Output:"},
};

/* Whether a section has flags (an engine without parameters has none). */
static int has_flags(int sec)
{
    for (size_t i = 0; i < kv_flag_count(); i++)
        if (kv_flag_at(i)->section == sec)
            return 1;
    return 0;
}

const char *kv_help_section_name(int sec)
{
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        if (fixed[i].id == sec)
            return fixed[i].name;
    if (sec >= SECTION_ENGINE_FIRST && sec < SECTION_PLAN && has_flags(sec))
        return kv_engine_name((kv_engine)(sec - SECTION_ENGINE_FIRST));
    return NULL;
}

/* "vLLM (with --engine vllm; docs/vllm.md):" for an engine's section. */
static const char *section_title(int sec, char *buf, size_t cap)
{
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        if (fixed[i].id == sec)
            return fixed[i].title;
    kv_engine e = (kv_engine)(sec - SECTION_ENGINE_FIRST);
    kv_snprintf(buf, cap, "%s (with --engine %s%s%s):", kv_engine_title(e), kv_engine_name(e),
             kv_engine_doc(e) ? "; " : "", kv_engine_doc(e) ? kv_engine_doc(e) : "");
    return buf;
}

int kv_help_section(const char *name)
{
    for (int i = 0; i < SECTION_COUNT; i++)
        if (kv_help_section_name(i) && strcmp(kv_help_section_name(i), name) == 0)
            return i;
    return -1;
}

static void help_section(FILE *out, int sec)
{
    kv_spec defaults;
    char def[FMT_BUF], title[200];
    int is_string;
    kv_spec_defaults(&defaults);
    if (sec >= SECTION_ENGINE_FIRST && sec < SECTION_PLAN)
        kv_spec_set_engine(&defaults, (kv_engine)(sec - SECTION_ENGINE_FIRST));
    kv_fprintf(out, "\n%s\n", section_title(sec, title, sizeof title));
    for (size_t i = 0; i < kv_flag_count(); i++) {
        const kv_flag *f = kv_flag_at(i);
        if ((int)f->section != sec)
            continue;
        /* the default in brackets, unless the help already says it or there is none */
        const char *d = NULL;
        if (f->does == DO_SPEC && f->arg != ARG_NONE && !strchr(f->help, '[')) {
            d = kv_param_text(def, sizeof def, &defaults, f->param, &is_string);
            if (strcmp(d, "null") == 0)
                d = NULL;
        }
        help_line(out, f, d);
    }
}

/* What the values of the flags look like, after the sections. */
static void help_values(FILE *out)
{
    char text[1024], bytes[64];
    size_t n = (size_t)kv_snprintf(text, sizeof text, "DTYPE is one of:");
    for (int i = 0; i < KV_DTYPE_COUNT && n < sizeof text; i++) {
        const kv_dtype_info *d = kv_dtype_get((kv_dtype)i);
        n += (size_t)kv_snprintf(text + n, sizeof text - n, " %s (%s B)%s", d->name,
                              fmt_g(bytes, sizeof bytes, d->bytes),
                              i + 1 < KV_DTYPE_COUNT ? "," : "; or another spelling:");
    }
    for (size_t i = 0; kv_dtype_spelling(i) && n < sizeof text; i++)
        n += (size_t)kv_snprintf(text + n, sizeof text - n, " %s", kv_dtype_spelling(i));
    fputc('\n', out);
    wrap(out, 0, 2, text);
    wrap(out, 0, 2, "N of tokens takes vLLM's forms too: 32k = 32,000, 32K = 32,768, 25.6k, 1m, "
                    "1M.");
    wrap(out, 0, 2, "KEY is a top-level key of the JSON output (docs/output.md). Values go as "
                    "--flag VALUE or --flag=VALUE; when a flag repeats, the last wins.");
}

void kv_help(FILE *out, int section)
{
    fputs("Usage: kvcalc [OPTION]...\n"
          "Size the KV cache of an LLM server: how many requests of a given context fit on\n"
          "one GPU once the weights are loaded, by the lesson's arithmetic or a serving\n"
          "engine's rules.\n"
          "\n"
          "Examples:\n"
          "  kvcalc                                the lesson's model on a 48 GiB GPU\n"
          "  kvcalc --model qwen3-8b --gpu h100 --context 32k\n"
          "  kvcalc --engine vllm --model qwen3-8b --gpu h100 --max-model-len 128k\n"
          "  kvcalc --engine llama.cpp --model ./model.gguf -c 32k -np 4 --gpu 4090\n"
          "  kvcalc --model qwen3-8b --gpu h100 --target-concurrency 64\n"
          "  kvcalc --model qwen3-8b --sweep context=4k..128k*2 --format csv\n"
          "  docker logs vllm 2>&1 | kvcalc --from-log - --max-model-len 64k\n",
          out);
    if (section >= 0) {
        help_section(out, section);
        return;
    }
    char names[512] = "Sections (--help=NAME shows one):";
    int last = 0;
    for (int i = 0; i < SECTION_COUNT; i++)
        last = kv_help_section_name(i) ? i : last;
    for (int i = 0; i < SECTION_COUNT; i++)
        if (kv_help_section_name(i))
            kv_snprintf(names + strlen(names), sizeof names - strlen(names), " %s%s",
                     kv_help_section_name(i), i < last ? "," : ".");
    fputc('\n', out);
    wrap(out, 0, 2, names);
    for (int sec = 0; sec < SECTION_COUNT; sec++)
        if (kv_help_section_name(sec))
            help_section(out, sec);
    fputs("\nA model from --config or --model sets layers, KV heads, head size, dtypes, the\n"
          "layer layout and the parameter count; --gpu sets the memory; flags given\n"
          "explicitly still win.\n",
          out);
    help_values(out);
    fputs("\n"
          "KV bytes per token = 2 x layers x kv-heads x head-dim x dtype bytes;\n"
          "max concurrency = floor((GPU - weights - overhead) / (KV per token x context)).\n"
          "\n"
          "Exit status: 0 ok, 1 a --require was not met, 2 usage error (one line on\n"
          "stderr, nothing on stdout), 3 the output could not be written.\n"
          "See kvcalc(1).\n",
          out);
}
