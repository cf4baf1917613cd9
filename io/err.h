/*
 * err.h - the error record every fallible plumb function fills.
 *
 * Expected failures (bad input, missing file) return a negative code and fill
 * a caller-provided struct plumb_err with a message and, when the problem sits
 * in a file, its name, line and column (1-based). Bugs abort through assert().
 * The CLI turns an error into "plumb: error: FILE:LINE:COL: message", the
 * offending source line and a caret, and exits with the code's exit status.
 */
#ifndef PLUMB_ERR_H
#define PLUMB_ERR_H

#include <stddef.h>

/* Return codes, also the process exit status (see docs/cli.md). */
enum plumb_rc {
	PLUMB_OK = 0,
	PLUMB_EUSAGE = 2,   /* wrong command line */
	PLUMB_EINPUT = 3,   /* invalid input file or value */
	PLUMB_EIO = 4,      /* cannot read or write a file */
	PLUMB_ERUNTIME = 5  /* a computation could not complete */
};

struct plumb_err {
	int code;           /* one of enum plumb_rc, 0 when clear */
	const char *file;   /* "" or NULL when the error is not tied to a file;
			       else the whole path, kept for the life of the
			       process (errors name few files), so a struct
			       plumb_err is copied freely */
	int line, col;      /* 1-based; 0 when unknown */
	char msg[1024];
};

void plumb_err_clear(struct plumb_err *e);

/*
 * A copy of path, whole at any length, kept for the life of the process:
 * one copy per distinct path, shared by every caller that keeps it (a
 * process names few files). For the structs that name a file and are
 * copied freely without being released: errors, scenarios, calibration
 * and validation files, catalog entries. NULL when out of memory; "" for
 * NULL or "".
 */
const char *plumb_keep_path(const char *path);

/* Fill e (if not NULL) and return -code. Never returns 0. */
int plumb_err_set(struct plumb_err *e, int code, const char *file, int line,
		  int col, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

/*
 * Print e to stderr in the house format; when e->file names a readable
 * regular file and e->line > 0, also print that line (about 120 characters
 * of it around e->col) and a caret under e->col. File, message and line
 * go through plumb_err_safe.
 */
void plumb_err_print(const struct plumb_err *e);

/* Characters of a message shown before it is cut with "..." (an option
 * value of 120 KB is not echoed whole). */
#define PLUMB_ERR_SHOWN 400

/*
 * Copy src into dst (size bytes, NUL-terminated) safe to print on a
 * terminal: control characters (an escape sequence's ESC, C1 controls),
 * DEL and bytes that are not UTF-8 become '?', one per byte, so columns stay
 * aligned; after max characters the rest becomes "...". Returns the
 * characters shown. Every message plumb prints goes through it.
 */
size_t plumb_err_safe(char *dst, size_t size, const char *src, size_t max);
/* Field f (n bytes, NUL-terminated) made safe in place as plumb_err_safe
 * does, never cut (a replaced byte becomes one '?'); the bytes after the
 * string are zeroed, for structs compared bytewise. */
void plumb_str_clean(char *f, size_t n);

/* Exit status for e: e->code, or PLUMB_ERUNTIME when unset. */
int plumb_err_status(const struct plumb_err *e);

#endif
