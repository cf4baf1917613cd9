/*
 * input.h - the one bounded reader behind every input file plumb reads
 * (scenarios, grids, case lists, calibrations, measured data, imported tool
 * output), so every command words an unreadable input the same way:
 *
 *   FILE: cannot read: <system's reason>        exit 4 (missing, no permission)
 *   FILE: cannot read: is a directory           exit 4
 *   FILE: file is larger than the 16 MiB input limit     exit 3
 *
 * A regular file's size is checked before a byte is read (a sparse 4 GiB
 * file is refused at once); a device, FIFO or standard input is read up to
 * one byte past the limit and no further (/dev/zero is refused, not read
 * forever).
 */
#ifndef PLUMB_INPUT_H
#define PLUMB_INPUT_H

#include <stddef.h>

#include "err.h"

/* Largest input file plumb reads, in bytes (docs/cli.md "Limits"). */
#define PLUMB_MAX_INPUT (16u * 1024u * 1024u)

/*
 * Read all of path ("-": standard input) into *buf, NUL-terminated, *len
 * bytes without the NUL; the caller frees *buf. Errors (as above): EIO,
 * EINPUT; *buf is NULL then. O(size).
 */
int input_read(const char *path, char **buf, size_t *len, struct plumb_err *err);

/*
 * Check, without reading, that path can be read and parsed more than once:
 * a regular file within the limit. Errors: as input_read, and EINPUT for a
 * device, FIFO or socket ("not a regular file").
 */
int input_check(const char *path, struct plumb_err *err);

/* name as seen from the file `file`: a relative name is taken in file's
 * directory, an absolute one (or a file without a directory) as it is.
 * Whole, malloc'd (caller frees); NULL when out of memory. */
char *input_path_beside(const char *file, const char *name);

#endif
