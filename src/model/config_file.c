/*
 * config_file.c - reading a config file, or standard input, with a size limit.
 *
 * Kept apart from config_json.c so that the reader of JSON never touches a file: the fuzz
 * target and the presets feed it text directly. The limit is checked while reading, so a
 * 100 MB file (or an endless pipe) is refused after 8 MiB, not swallowed.
 */
#include "config.h"
#include "kvprint.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The path as a message may show it: control bytes become '?' (a file name can hold any
 * byte but '/' and NUL, and must not drive the terminal). */
const char *config_path_shown(char *buf, size_t cap, const char *path)
{
    size_t n = 0;
    for (; *path && n + 1 < cap; path++)
        buf[n++] = ((unsigned char)*path < 0x20 || *path == 0x7f) ? '?' : *path;
    buf[n] = '\0';
    return buf;
}

FILE *config_open(const char *path, char *name, size_t namecap, char *err, size_t errcap)
{
    config_path_shown(name, namecap, path);
    FILE *f = fopen(path, "rb");
    if (!f)
        kv_snprintf(err, errcap, "%s: cannot open: %s", name, strerror(errno));
    return f;
}

kv_status kv_config_load_file(const char *path, char **text, size_t *len, char *err, size_t errcap)
{
    int from_stdin = strcmp(path, "-") == 0;
    char safe[1024];
    const char *name = from_stdin ? "<stdin>" : config_path_shown(safe, sizeof safe, path);
    FILE *f = from_stdin ? stdin : fopen(path, "rb");
    if (!f) {
        kv_snprintf(err, errcap, "%s: cannot open: %s", name, strerror(errno));
        return KV_ERR_FILE;
    }
    size_t cap = 64 * 1024, n = 0;
    char *buf = malloc(cap + 1);
    int rc = 0;
    while (buf) {
        if (n == cap) {
            if (cap >= KV_CONFIG_MAX_BYTES) {
                kv_snprintf(err, errcap, "%s: file too large (over %u MiB)", name,
                         KV_CONFIG_MAX_BYTES >> 20);
                rc = KV_ERR_FORMAT;
                break;
            }
            cap *= 2;
            char *bigger = realloc(buf, cap + 1);
            if (!bigger) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = bigger;
        }
        size_t want = cap - n;
        size_t got = fread(buf + n, 1, want, f);
        n += got;
        if (got < want) {
            if (ferror(f)) {
                kv_snprintf(err, errcap, "%s: read error", name);
                rc = KV_ERR_FILE;
            }
            break;
        }
    }
    if (!from_stdin)
        fclose(f);
    if (!buf) {
        kv_snprintf(err, errcap, "%s: out of memory", name);
        return KV_ERR_NO_MEMORY;
    }
    if (rc != 0) {
        free(buf);
        return rc;
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return 0;
}
