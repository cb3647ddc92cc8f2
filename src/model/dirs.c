/*
 * dirs.c - see dirs.h. POSIX (opendir, stat) where it exists; elsewhere every answer is
 * "no": a folder is then found only through the fixed names of kv_folder_load(), which
 * plain fopen() reaches.
 */
#if defined(__unix__) || defined(__APPLE__)
#define _POSIX_C_SOURCE 200809L
#define KV_HAVE_DIRS 1
#include <dirent.h>
#include <sys/stat.h>
#endif

#include "dirs.h"

#include <stdlib.h>
#include <string.h>

#ifdef KV_HAVE_DIRS

int dir_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

double dir_mtime(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (double)st.st_mtime : -1;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

long dir_list(const char *dir, const char *suffix, size_t max, char ***names)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    size_t n = 0, cap = 0, sl = strlen(suffix);
    char **v = NULL;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < max) {
        size_t len = strlen(e->d_name);
        if (e->d_name[0] == '.' || len < sl || strcmp(e->d_name + len - sl, suffix) != 0)
            continue;
        if (n == cap) {
            char **bigger = realloc(v, (cap = cap ? cap * 2 : 16) * sizeof *v);
            if (!bigger)
                break;
            v = bigger;
        }
        if ((v[n] = malloc(len + 1)) == NULL)
            break;
        memcpy(v[n++], e->d_name, len + 1);
    }
    closedir(d);
    if (n)
        qsort(v, n, sizeof *v, by_name); /* readdir's order is the file system's: not stable */
    *names = v;
    return (long)n;
}

#else

int dir_exists(const char *path)
{
    (void)path;
    return 0;
}

double dir_mtime(const char *path)
{
    (void)path;
    return -1;
}

long dir_list(const char *dir, const char *suffix, size_t max, char ***names)
{
    (void)dir;
    (void)suffix;
    (void)max;
    *names = NULL;
    return -1;
}

#endif

void dir_list_free(char **names, long n)
{
    for (long i = 0; i < n; i++)
        free(names[i]);
    free(names);
}
