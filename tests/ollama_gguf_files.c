/*
 * ollama_gguf_files.c - writes the models of the Ollama logs (ollama_models.c) into a
 * folder, each as DIR/ID.gguf with its data section a hole: ollama_gguf_files DIR. Run at
 * build time (tests/CMakeLists.txt), before test_ollama.
 */
#include "ollama_models.h"

#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: ollama_gguf_files DIR\n");
        return 2;
    }
    for (size_t i = 0; ollama_model_ids[i]; i++) {
        char path[4096];
        gguf_writer w;
        gw_init(&w);
        ollama_model_build(ollama_model_ids[i], &w);
        snprintf(path, sizeof path, "%s/%s.gguf", argv[1], ollama_model_ids[i]);
        int rc = gw_write_file_sparse(&w, path);
        gw_free(&w);
        if (rc != 0) {
            fprintf(stderr, "ollama_gguf_files: cannot write %s\n", path);
            return 1;
        }
    }
    return 0;
}
