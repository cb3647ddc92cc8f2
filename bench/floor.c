/* floor.c - the floor a sweep is measured against: a printf loop printing as many rows of
 * as many numbers as kvcalc's CSV, as fast as the C library formats and writes them.
 *
 * Usage: floor ROWS COLS    (prints ROWS lines of COLS comma-separated numbers)
 *
 * The numbers are of the sizes a sweep prints (a context, bytes per token, bytes per
 * request, free bytes, a count) so the formatting work matches. A benchmark tool, not part
 * of kvcalc. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: floor ROWS COLS\n");
        return 2;
    }
    long long rows = atoll(argv[1]);
    int cols = atoi(argv[2]);
    if (rows < 0 || cols < 1 || cols > 64) {
        fprintf(stderr, "floor: ROWS >= 0, COLS 1..64\n");
        return 2;
    }
    static char buf[1 << 16];
    setvbuf(stdout, buf, _IOFBF, sizeof buf);
    for (long long i = 1; i <= rows; i++) {
        for (int c = 0; c < cols; c++) {
            long long v = c == 0 ? i : c == 1 ? 57344 : c == 2 ? 57344 * i : 35392123904LL / (c + i);
            printf(c ? ",%lld" : "%lld", v);
        }
        putchar('\n');
    }
    return fflush(stdout) != 0;
}
