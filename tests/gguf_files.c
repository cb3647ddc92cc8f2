/*
 * gguf_files.c - writes a set of test GGUF files into a folder, each with its data section
 * a hole (a model of gigabytes costs a few megabytes of disk):
 *   gguf_files ground-truth DIR -> DIR/L01.gguf, L06, L08, L09 (gguf_models.c)
 *   gguf_files ollama DIR       -> the models of the Ollama logs (ollama_models.c)
 * Run at build time (tests/CMakeLists.txt), before the tests that read them.
 */
#include "gguf_models.h"
#include "ollama_models.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    static const struct {
        const char *set;
        const char *const *ids;
        int (*build)(const char *id, gguf_writer *w);
    } sets[] = {{"ground-truth", gguf_model_ids, gguf_model_build},
                {"ollama", ollama_model_ids, ollama_model_build}};
    size_t k = 0;
    while (argc == 3 && k < sizeof sets / sizeof sets[0] && strcmp(argv[1], sets[k].set) != 0)
        k++;
    if (argc != 3 || k == sizeof sets / sizeof sets[0]) {
        fprintf(stderr, "usage: gguf_files ground-truth|ollama DIR\n");
        return 2;
    }
    for (size_t i = 0; sets[k].ids[i]; i++) {
        char path[4096];
        gguf_writer w;
        gw_init(&w);
        sets[k].build(sets[k].ids[i], &w);
        snprintf(path, sizeof path, "%s/%s.gguf", argv[2], sets[k].ids[i]);
        int rc = gw_write_file_sparse(&w, path);
        gw_free(&w);
        if (rc != 0) {
            fprintf(stderr, "gguf_files: cannot write %s\n", path);
            return 1;
        }
    }
    return 0;
}
