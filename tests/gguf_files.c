/*
 * gguf_files.c - writes the ground-truth rows' GGUF files (gguf_models.c) into a folder:
 * gguf_files DIR -> DIR/L01.gguf, DIR/L06.gguf, DIR/L08.gguf, DIR/L09.gguf. Run at build
 * time (tests/CMakeLists.txt), before test_ground_truth.
 */
#include "gguf_models.h"

#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: gguf_files DIR\n");
        return 2;
    }
    for (size_t i = 0; gguf_model_ids[i]; i++) {
        char path[4096];
        gguf_writer w;
        gw_init(&w);
        gguf_model_build(gguf_model_ids[i], &w);
        snprintf(path, sizeof path, "%s/%s.gguf", argv[1], gguf_model_ids[i]);
        int rc = gw_write_file(&w, path);
        gw_free(&w);
        if (rc != 0) {
            fprintf(stderr, "gguf_files: cannot write %s\n", path);
            return 1;
        }
    }
    return 0;
}
