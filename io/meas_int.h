/*
 * meas_int.h - helpers shared by the measurement parsers (io/meas_*.c):
 * reading a file, refusing binary or oversized input, walking lines with
 * CR, BOM and ANSI escapes removed, splitting on blanks, strict numbers.
 * Not part of the public interface (io/meas.h).
 */
#ifndef PLUMB_MEAS_INT_H
#define PLUMB_MEAS_INT_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

/*
 * Read path ("-" = stdin) into a new NUL-terminated buffer *buf (caller
 * frees) of *len bytes. PLUMB_EIO when it cannot be read, PLUMB_EINPUT when
 * larger than MEAS_MAX_INPUT; *buf is NULL then.
 */
int meas_read_file(const char *path, char **buf, size_t *len,
		   struct plumb_err *err);

/* Refuse input larger than MEAS_MAX_INPUT or holding a NUL byte (the error
 * names the line and column of the first NUL). 0 when the text is fine. */
int meas_check_text(const char *buf, size_t len, const char *fname,
		    struct plumb_err *err);

/* Line walker. The current line is a private NUL-terminated copy. */
struct meas_lines {
	const char *p, *end;
	int lineno;             /* of the current line, 1-based */
	int strip_ansi;         /* remove ESC [ ... letter sequences */
	char *buf;              /* owned; the current line */
	size_t cap;
};

void meas_lines_init(struct meas_lines *l, const char *buf, size_t len,
		     int strip_ansi);
/* Advance: 1 and *line set, 0 at the end, -1 out of memory. The line has
 * no '\n', no trailing '\r', no BOM (line 1) and, if asked, no escapes. */
int meas_lines_next(struct meas_lines *l, char **line);
void meas_lines_release(struct meas_lines *l);

/* A blank-separated token of a line: s[0..len), 1-based column col. */
struct meas_tok {
	const char *s;
	int len;
	int col;
};

/* Split line on spaces and tabs into at most max tokens; returns how many
 * there are in all (may exceed max: the rest are not stored). */
int meas_split(const char *line, struct meas_tok *tok, int max);

/* Token equal to word (case-sensitive / case-insensitive). */
int meas_tok_is(const struct meas_tok *t, const char *word);
int meas_tok_icase(const struct meas_tok *t, const char *word);

/* Strict number parsing of s[0..len) (no blanks, the whole text). */
enum { MEAS_NUM_OK = 0, MEAS_NUM_BAD = -1, MEAS_NUM_RANGE = -2,
       MEAS_NUM_NONFINITE = -3 };
int meas_num_double(const char *s, size_t len, double *out);
int meas_num_u64(const char *s, size_t len, uint64_t *out);
int meas_num_int(const char *s, size_t len, int *out); /* optional '-' */

/* Copy at most len bytes of s into dst of size n, NUL-terminated. */
void meas_copy(char *dst, size_t n, const char *s, size_t len);

#endif
