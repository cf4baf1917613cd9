/*
 * out.h - output files written atomically: data goes to "PATH.tmp.PID" and is
 * renamed over PATH only by out_commit(), so an interrupted or failed run
 * leaves the old file or the new one, never half of one. Path "-" means
 * standard output: the text is held in memory and written by out_commit(),
 * so a run that fails half-way prints nothing but its error.
 */
#ifndef PLUMB_OUT_H
#define PLUMB_OUT_H

#include <stdio.h>

#include "err.h"

struct outfile {
	FILE *f;               /* write here */
	char path[512];
	char tmp[600];
	int is_stdout;
	char *mem;             /* stdout: the buffer behind f (open_memstream) */
	size_t memlen;
};

/* Open path for writing (see above). Errors: EIO. */
int out_open(struct outfile *o, const char *path, struct plumb_err *err);

/* Flush, close and rename into place. Errors: EIO (temporary file removed). */
int out_commit(struct outfile *o, struct plumb_err *err);

/* Close and remove the temporary file; safe after a failed open or commit. */
void out_abort(struct outfile *o);

/* s as a double-quoted string, valid JSON and YAML: '"' and '\\' escaped,
 * control characters dropped. */
void out_quoted(FILE *f, const char *s);

#endif
