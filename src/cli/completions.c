/*
 * completions.c - writes kvcalc's shell completions for bash, zsh and fish from the flag
 * table (cli/flags.c: the library's parameters and the program's flags), so every long flag and alias is completed and a new flag
 * needs no script edit. Run by the build (CMakeLists.txt); not installed.
 *
 * Values completed: dtype flags (every dtype name and spelling, and "auto"), choice flags
 * (their choices, --format among them), --model (preset aliases), --gpu (the first alias of
 * each GPU and its lowercase name with '-' for spaces), --get (the output keys), and file
 * names for --config and --plot. Every word is checked to be one the parser takes back.
 *
 * Usage: kvcalc_completions_gen bash|zsh|fish [FILE]   (default: standard output)
 */
#include "keys.h"
#include "options.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_WORDS 512 /* the output keys: about 330 in kvcalc 6 */

typedef struct {
    const char *w[MAX_WORDS];
    size_t n;
} word_list;

typedef enum { VAL_NONE, VAL_FREE, VAL_FILES, VAL_WORDS } value_kind_t;

static word_list dtypes, models, gpus, keys;
static char pool[16384]; /* GPU words made here */
static size_t pool_used;

static void die(const char *what, const char *word)
{
    fprintf(stderr, "kvcalc_completions_gen: %s '%s'\n", what, word ? word : "(null)");
    exit(1);
}

/* Adds a word once; a word a shell would need quoted is a bug in a table, not a completion. */
static void add(word_list *l, const char *word)
{
    if (!word || !*word)
        die("empty word", word);
    for (const char *p = word; *p; p++)
        if (!isalnum((unsigned char)*p) && !strchr("._+-/", *p))
            die("word a shell would need quoted", word);
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->w[i], word) == 0)
            return;
    if (l->n == MAX_WORDS)
        die("too many words at", word);
    l->w[l->n++] = word;
}

/* 1: row i repeats an earlier row's name (a flag two engines share): the shells offer each
 * name once, with the first row's values. */
static int twin_of_earlier(size_t i)
{
    for (size_t k = 0; k < i; k++)
        if (strcmp(kv_flag_at(k)->name, kv_flag_at(i)->name) == 0)
            return 1;
    return 0;
}

static const char *keep(const char *text, size_t len)
{
    if (pool_used + len + 1 > sizeof pool)
        die("out of room for", text);
    char *s = pool + pool_used;
    memcpy(s, text, len);
    s[len] = '\0';
    pool_used += len + 1;
    return s;
}

static void add_gpu_word(const kv_gpu *g, const char *word)
{
    if (kv_gpu_find(word) == g) /* only words that find this very GPU */
        add(&gpus, word);
}

static void collect(void)
{
    for (int d = 0; d < KV_DTYPE_COUNT; d++)
        add(&dtypes, kv_dtype_get((kv_dtype)d)->name);
    for (size_t i = 0; kv_dtype_spelling(i); i++)
        add(&dtypes, kv_dtype_spelling(i));
    add(&dtypes, "auto");

    for (size_t i = 0; i < kv_model_preset_count(); i++) {
        const kv_model_preset *m = kv_model_preset_at(i);
        if (m->alias && *m->alias && kv_model_preset_find(m->alias) == m)
            add(&models, m->alias);
    }

    for (size_t i = 0; i < kv_gpu_count(); i++) {
        const kv_gpu *g = kv_gpu_at(i);
        char name[128];
        size_t n = 0;
        if (g->aliases && *g->aliases)
            add_gpu_word(g, keep(g->aliases, strcspn(g->aliases, " ")));
        for (const char *p = g->name; *p && n + 1 < sizeof name; p++)
            name[n++] = *p == ' ' ? '-' : (char)tolower((unsigned char)*p);
        add_gpu_word(g, keep(name, n));
    }

    for (size_t i = 0; i < kv_field_count(); i++)
        add(&keys, kv_field_at(i)->name);
}

/* What follows a flag on the command line, and the words for it. */
static value_kind_t value_of(const kv_flag *f, const word_list **words, word_list *choices)
{
    *words = NULL;
    if (f->arg == ARG_NONE)
        return VAL_NONE;
    switch (f->does) {
    case DO_MODEL_FILE:
    case DO_LORA:
    case DO_PLOT:
    case DO_FROM_LOG:
        return VAL_FILES;
    case DO_MODEL_NAME:
    case DO_DRAFT:
        *words = &models;
        return VAL_WORDS;
    case DO_GPU:
        *words = &gpus;
        return VAL_WORDS;
    case DO_GET:
        *words = &keys;
        return VAL_WORDS;
    default:
        break;
    }
    if (f->arg == ARG_DTYPE) {
        *words = &dtypes;
        return VAL_WORDS;
    }
    if ((f->arg == ARG_CHOICE || f->arg == ARG_ENGINE) && f->choices) {
        choices->n = 0;
        for (const kv_choice *c = f->choices; c->name; c++)
            add(choices, c->name);
        *words = choices;
        return VAL_WORDS;
    }
    return VAL_FREE;
}

static void put_words(FILE *out, const word_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        fprintf(out, "%s%s", i ? " " : "", l->w[i]);
}

/* Text inside '...' for the shell: ' as '\'' (sh, zsh) or \' (fish). */
static void put_quoted(FILE *out, const char *text, int fish, int zsh_spec)
{
    for (const char *p = text; *p; p++) {
        if (*p == '\'')
            fputs(fish ? "\\'" : "'\\''", out);
        else if (fish && *p == '\\')
            fputs("\\\\", out);
        else if (zsh_spec && strchr("[]:\\", *p)) /* _arguments' own syntax */
            fprintf(out, "\\%c", *p);
        else
            fputc(*p, out);
    }
}

static const char *const header =
    "kvcalc, generated from its flag table (src/cli/options.c) by src/cli/completions.c.\n"
    "# Do not edit: a new flag in the table is completed on the next build.\n";

static void write_bash(FILE *out)
{
    word_list choices;
    const word_list *words;
    fprintf(out, "# bash completion for %s\n", header);
    fputs("_kvcalc()\n"
          "{\n"
          "    local cur=${COMP_WORDS[COMP_CWORD]} prev='' flag='' value='' prefix='' words=''\n"
          "    ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD-1]}\n"
          "    if [[ $cur == --*=* ]]; then                      # '=' not a word break\n"
          "        flag=${cur%%=*} value=${cur#*=} prefix=${cur%%=*}=\n"
          "    elif [[ $cur == = ]]; then                        # --flag=<TAB>\n"
          "        flag=$prev\n"
          "    elif [[ $prev == = ]] && ((COMP_CWORD > 1)); then # --flag=val<TAB>\n"
          "        flag=${COMP_WORDS[COMP_CWORD-2]} value=$cur\n"
          "    elif [[ $prev == -* ]]; then                      # --flag val<TAB>\n"
          "        flag=$prev value=$cur\n"
          "    fi\n"
          "    case $flag in\n",
          out);
    for (size_t i = 0; i < kv_flag_count(); i++) {
        const kv_flag *f = kv_flag_at(i);
        if (twin_of_earlier(i))
            continue;
        value_kind_t kind = value_of(f, &words, &choices);
        if (kind == VAL_NONE)
            continue;
        fprintf(out, "        --%s", f->name);
        for (size_t a = 0; a < KV_MAX_ALIASES && f->alias[a]; a++)
            fprintf(out, "|--%s", f->alias[a]);
        if (f->short_name)
            fprintf(out, "|-%s", f->short_name);
        fputc(')', out);
        if (kind == VAL_FREE)
            fputs(" return 0 ;; # a value to type\n", out);
        else if (kind == VAL_FILES)
            fputs("\n            compopt -o filenames 2>/dev/null\n"
                  "            mapfile -t COMPREPLY < <(compgen -f -- \"$value\") ;;\n",
                  out);
        else {
            fputs(" words='", out);
            put_words(out, words);
            fputs("' ;;\n", out);
        }
    }
    fputs("        *)\n"
          "            [[ -z $cur || $cur == -* ]] || return 0\n"
          "            words='",
          out);
    for (size_t i = 0; i < kv_flag_count(); i++) {
        const kv_flag *f = kv_flag_at(i);
        if (twin_of_earlier(i))
            continue;
        fprintf(out, "%s--%s", i ? " " : "", f->name);
        for (size_t a = 0; a < KV_MAX_ALIASES && f->alias[a]; a++)
            fprintf(out, " --%s", f->alias[a]);
        if (f->short_name)
            fprintf(out, " -%s", f->short_name);
    }
    fputs("'\n"
          "            value=$cur prefix='' ;;\n"
          "    esac\n"
          "    [[ -n $words ]] && mapfile -t COMPREPLY < <(compgen -W \"$words\" -- \"$value\")\n"
          "    [[ -n $prefix ]] && COMPREPLY=(\"${COMPREPLY[@]/#/$prefix}\")\n"
          "    return 0\n"
          "}\n"
          "complete -F _kvcalc kvcalc\n",
          out);
}

static void write_zsh(FILE *out)
{
    word_list choices;
    const word_list *words;
    fprintf(out, "#compdef kvcalc\n# zsh completion for %s\n_arguments \\\n", header);
    for (size_t i = 0; i < kv_flag_count(); i++) {
        const kv_flag *f = kv_flag_at(i);
        if (twin_of_earlier(i))
            continue;
        value_kind_t kind = value_of(f, &words, &choices);
        const char *eq = kind == VAL_NONE ? "" : "=";
        const char *rep = (f->does == DO_REQUIRE || f->does == DO_SWEEP) ? "*" : "";
        fputs("  ", out);
        if (f->alias[0] || f->short_name) {
            fputs("'(", out);
            if (f->short_name)
                fprintf(out, "-%s ", f->short_name);
            fprintf(out, "--%s", f->name);
            for (size_t a = 0; a < KV_MAX_ALIASES && f->alias[a]; a++)
                fprintf(out, " --%s", f->alias[a]);
            fputs(")'{", out);
            if (f->short_name)
                fprintf(out, "-%s,", f->short_name);
            fprintf(out, "--%s%s", f->name, eq);
            for (size_t a = 0; a < KV_MAX_ALIASES && f->alias[a]; a++)
                fprintf(out, ",--%s%s", f->alias[a], eq);
            fputs("}'[", out);
        } else {
            fprintf(out, "'%s--%s%s[", rep, f->name, eq);
        }
        put_quoted(out, f->help ? f->help : "", 0, 1);
        fputs("]", out);
        if (kind != VAL_NONE) {
            fputc(':', out);
            put_quoted(out, f->meta ? f->meta : "value", 0, 1);
            if (kind == VAL_FILES)
                fputs(":_files", out);
            else if (kind == VAL_WORDS) {
                fputs(":(", out);
                put_words(out, words);
                fputs(")", out);
            } else
                fputs(": ", out);
        }
        fprintf(out, "'%s\n", i + 1 < kv_flag_count() ? " \\" : "");
    }
}

static void write_fish(FILE *out)
{
    word_list choices;
    const word_list *words;
    fprintf(out, "# fish completion for %s", header);
    fputs("complete -c kvcalc -f\n", out);
    for (size_t i = 0; i < kv_flag_count(); i++) {
        const kv_flag *f = kv_flag_at(i);
        if (twin_of_earlier(i))
            continue;
        value_kind_t kind = value_of(f, &words, &choices);
        fputs("complete -c kvcalc", out);
        if (f->short_name) /* fish: -s one letter, -o an old-style "-np" */
            fprintf(out, " -%c %s", f->short_name[1] ? 'o' : 's', f->short_name);
        fprintf(out, " -l %s", f->name);
        for (size_t a = 0; a < KV_MAX_ALIASES && f->alias[a]; a++)
            fprintf(out, " -l %s", f->alias[a]);
        if (kind == VAL_FILES)
            fputs(" -r -F", out);
        else if (kind != VAL_NONE)
            fputs(" -x", out);
        if (kind == VAL_WORDS) {
            fputs(" -a '", out);
            put_words(out, words);
            fputc('\'', out);
        }
        fputs(" -d '", out);
        put_quoted(out, f->help ? f->help : "", 1, 0);
        fputs("'\n", out);
    }
}

int main(int argc, char **argv)
{
    void (*write)(FILE *) = NULL;
    if (argc >= 2 && strcmp(argv[1], "bash") == 0)
        write = write_bash;
    else if (argc >= 2 && strcmp(argv[1], "zsh") == 0)
        write = write_zsh;
    else if (argc >= 2 && strcmp(argv[1], "fish") == 0)
        write = write_fish;
    if (!write || argc > 3) {
        fputs("usage: kvcalc_completions_gen bash|zsh|fish [FILE]\n", stderr);
        return 2;
    }
    collect();
    FILE *out = argc == 3 ? fopen(argv[2], "w") : stdout;
    if (!out) {
        perror(argv[2]);
        return 1;
    }
    write(out);
    if (ferror(out) | (out == stdout ? fflush(out) : fclose(out))) {
        perror(argc == 3 ? argv[2] : "stdout");
        if (argc == 3)
            remove(argv[2]);
        return 1;
    }
    return 0;
}
