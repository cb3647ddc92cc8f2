/*
 * dirs.h - the few directory operations a model folder and the Hugging Face cache need
 * (dirs.c). Standard C cannot list a directory; this is the library's only platform code.
 */
#ifndef KVCALC_DIRS_H
#define KVCALC_DIRS_H

#include <stddef.h>

/* 1 when path is a directory, else 0. */
int dir_exists(const char *path);

/* The names in dir that end with suffix (and do not start with '.'), sorted bytewise, as a
 * malloc'ed array of malloc'ed strings (dir_list_free()). Returns the count, or -1 when the
 * directory cannot be listed (or no listing exists on this platform). At most max names. */
long dir_list(const char *dir, const char *suffix, size_t max, char ***names);
void dir_list_free(char **names, long n);

/* The modification time of path in seconds (any epoch), or -1. */
double dir_mtime(const char *path);

#endif
