/* spawn.c - the cost of starting a command, next to its floor, in one interleaved run.
 *
 * Usage: spawn RUNS CMD [ARGS...] [-- CMD [ARGS...]]...
 *
 * Each round starts every command once, in order, so a slow moment of the machine lands on
 * all of them alike (timing them one after another would let a noisy neighbour bias one).
 * A command's stdout and stderr go to /dev/null. Printed per command: the median and the
 * mean wall time of one start-to-exit in microseconds, and the median as a ratio to the
 * first command's (the floor, /bin/true in bench.sh). The median, because a 2-core machine
 * has outliers that move a mean by 10%.
 *
 * This is a benchmark tool, not part of kvcalc: it uses POSIX (posix_spawn, waitpid,
 * clock_gettime), which the product does not. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

enum { MAX_CMDS = 16 };

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: spawn RUNS CMD [ARGS...] [-- CMD [ARGS...]]...\n");
    return 2;
  }
  long runs = strtol(argv[1], NULL, 10);
  if (runs < 1 || runs > 1000000) {
    fprintf(stderr, "spawn: RUNS must be 1..1000000\n");
    return 2;
  }
  char **cmds[MAX_CMDS];
  int n = 0;
  cmds[n++] = &argv[2];
  for (int i = 2; i < argc; i++) {
    if (strcmp(argv[i], "--") == 0) {
      argv[i] = NULL; /* ends the previous command's argv */
      if (i + 1 >= argc || n == MAX_CMDS) {
        fprintf(stderr, "spawn: an empty command, or more than %d\n", MAX_CMDS);
        return 2;
      }
      cmds[n++] = &argv[i + 1];
    }
  }
  double *t = malloc(sizeof *t * (size_t)runs * (size_t)n);
  if (!t) return 1;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  for (long r = -runs / 20 - 1; r < runs; r++) { /* the first 5% warm the caches, untimed */
    for (int c = 0; c < n; c++) {
      pid_t pid;
      double t0 = now_us();
      if (posix_spawn(&pid, cmds[c][0], &fa, NULL, cmds[c], environ) != 0) {
        fprintf(stderr, "spawn: cannot start %s\n", cmds[c][0]);
        return 1;
      }
      int st;
      waitpid(pid, &st, 0);
      double dt = now_us() - t0;
      if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "spawn: %s failed (status %d)\n", cmds[c][0], st);
        return 1;
      }
      if (r >= 0) t[(size_t)c * (size_t)runs + (size_t)r] = dt;
    }
  }
  double floor_median = 0;
  for (int c = 0; c < n; c++) {
    double *v = &t[(size_t)c * (size_t)runs], sum = 0;
    for (long r = 0; r < runs; r++) sum += v[r];
    qsort(v, (size_t)runs, sizeof *v, cmp_double);
    double median = v[runs / 2];
    if (c == 0) floor_median = median;
    printf("  %7.1f us median %7.1f us mean  %5.2fx  ", median, sum / (double)runs,
           median / floor_median);
    for (char **a = cmds[c]; *a; a++) printf("%s%s", a == cmds[c] ? "" : " ", *a);
    printf("\n");
  }
  free(t);
  return 0;
}
