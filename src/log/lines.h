/*
 * lines.h - the bounded line reader the startup-log, trace and /metrics readers share: a
 * file (or stdin) in chunks of 64 KiB, each line handed to a feed function without its
 * newline, a line over the limit handed as limit + 1 bytes (so the feed refuses it by its
 * line number, or skips it), the file never held whole.
 */
#ifndef KVCALC_LINES_H
#define KVCALC_LINES_H

#include "kvcalc.h"

#include <stddef.h>

/* What one file may hold: a log, a trace or a scrape longer than this is refused rather than
 * read without end (/dev/zero, `yes |`); the largest real ones are far below (a day's vLLM log
 * is tens of MB). */
#define KV_LINES_MAX_BYTES ((unsigned long long)1 << 31) /* 2 GiB */
#define KV_LINES_MAX_LINES ((unsigned long long)1 << 25) /* 33,554,432 lines */

typedef kv_status (*kv_line_feed)(void *ctx, const char *line, size_t len, char *err,
                                  size_t errcap);

typedef void (*kv_chunk_feed)(void *ctx, const char *chunk, size_t len);

/* Feeds every line of path ("-": stdin) to feed; a line that lies whole in a chunk is fed
 * from the chunk, not copied. chunk (may be NULL) is told of each chunk before its lines are
 * fed, so a feed can search ahead in it once instead of in every line. The last line, when no newline ends it, is fed too, or, with
 * unterminated non-NULL, left out and *unterminated set to 1 (a cut file's last line could
 * match what it does not hold: the startup-log reader drops it). Returns KV_OK, the feed's
 * status (its message in err), KV_ERR_FILE ("cannot open: ...", "cannot read: ...", "more
 * than 2 GiB or 33,554,432 lines ...") or KV_ERR_NO_MEMORY. */
kv_status kv_lines_read(const char *path, size_t max_line, kv_line_feed feed,
                        kv_chunk_feed chunk, void *ctx, int *unterminated, char *err,
                        size_t errcap);

#endif
