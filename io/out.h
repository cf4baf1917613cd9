/*
 * out.h - the one safe output path (-o FILE) of every command.
 *
 * What happens depends on what FILE is (out_resolve):
 *   - "-": standard output. The text is held in memory and written by
 *     out_commit(), so a run that fails half-way prints nothing but its
 *     error; a write error (a full disk, a closed pipe) is an EIO error.
 *   - a regular file, or no file yet: replaced atomically. The data goes to
 *     a fresh temporary file beside it ("FILE.tmp.XXXXXX", created with
 *     O_CREAT|O_EXCL|O_NOFOLLOW, so a planted name or symlink is never
 *     followed) and is renamed over FILE only by out_commit(): an
 *     interrupted or failed run leaves the old file or the new one, never
 *     half of one. A replaced file keeps its permission bits.
 *   - a symbolic link: written through to its target the same way (the
 *     temporary file sits beside the target); the link itself is kept.
 *   - a character device or a FIFO (/dev/null, a named pipe), and the
 *     caller's own open files whatever they are (/dev/stdout, /dev/stderr,
 *     /dev/fd/N, /proc/self/fd/N): opened for appending, never replaced, so
 *     `-o /dev/stdout >> log` keeps the log; the text is held in memory and
 *     written by out_commit() as for "-".
 *   - anything else (a directory, a socket, a block device, a dangling
 *     link): refused with EIO, nothing touched.
 * No path length limit other than the system's.
 */
#ifndef PLUMB_OUT_H
#define PLUMB_OUT_H

#include <stdio.h>
#include <sys/types.h>

#include "err.h"

enum out_kind {
	OUT_STDOUT,     /* "-" */
	OUT_REPLACE,    /* a regular file or a new one: temporary + rename */
	OUT_DIRECT      /* a character device or FIFO: written in place */
};

struct outfile {
	FILE *f;               /* write here */
	char *path;            /* as given, for messages (owned) */
	char *target;          /* the file written: path or a link's target (owned) */
	char *tmp;             /* OUT_REPLACE: the temporary file (owned) */
	enum out_kind kind;
	int fd;                /* OUT_DIRECT: the open device or FIFO, else -1 */
	int is_stdout;         /* kind == OUT_STDOUT */
	char *mem;             /* STDOUT, DIRECT: the buffer behind f (open_memstream) */
	size_t memlen;
};

/*
 * Classify path as above. On success *target is a new string (caller frees:
 * path itself, or the file a symbolic link leads to) and *mode the existing
 * file's permission bits (0 for a new file). Errors: EIO for a directory,
 * socket, block device, dangling link, or a failed lookup.
 */
int out_resolve(const char *path, enum out_kind *kind, char **target, mode_t *mode,
		struct plumb_err *err);

/*
 * Create the new file `name` for writing, exclusively: never an existing
 * file, never through a symbolic link (O_CREAT|O_EXCL|O_NOFOLLOW), with
 * permission bits `mode` (0: 0666) less the umask. A descriptor, or -1 with
 * errno set (EEXIST when anything, a link included, is there).
 */
int out_create(const char *name, mode_t mode);

/*
 * Create a new file named "<base><suffix>XXXXXX" (XXXXXX random) with
 * O_CREAT|O_EXCL|O_NOFOLLOW and permission bits `mode` (0: 0666 less the
 * umask). On success *name is the new name (caller frees) and the return
 * value an open descriptor. Errors: EIO, naming `base`.
 */
int out_mkexcl(const char *base, const char *suffix, mode_t mode, char **name,
	       struct plumb_err *err);

/* Open path for writing (see above). Errors: EIO. On failure nothing needs
 * releasing and no file was created. */
int out_open(struct outfile *o, const char *path, struct plumb_err *err);

/* Flush, close and put into place (rename, or write the held text). Errors:
 * EIO (temporary file removed). Releases everything either way. */
int out_commit(struct outfile *o, struct plumb_err *err);

/*
 * Flush and close standard output at the end of a run: every byte a
 * command printed directly (help, tables) reached it, or an EIO error
 * naming <stdout> (exit 4). stdout is closed: call once, last.
 */
int out_stdout_close(struct plumb_err *err);

/*
 * Temporary files and directories removed if a signal (SIGINT, SIGTERM,
 * SIGHUP, SIGPIPE) ends the run: out_tmp_add registers path (borrowed: it
 * must stay valid until out_tmp_forget; isdir: removed with rmdir, after
 * the files registered later), and installs the handler, which removes
 * every registered path, newest first, then re-raises the signal with its
 * default action. At most 256 at a time (-1 past that: not tracked).
 * out_open's temporary file is registered by out_open itself.
 */
int out_tmp_add(const char *path, int isdir);
void out_tmp_forget(const char *path);

/* Close and remove the temporary file; safe after a failed open or commit. */
void out_abort(struct outfile *o);

/* Write all n bytes of buf to fd, retrying short writes and EINTR; 0 or -1
 * (errno set). */
int out_write_fd(int fd, const char *buf, size_t n);

/*
 * CSV cells from input (names, values, messages) against formula injection,
 * as spreadsheet-safe CSV writers do (OWASP "CSV Injection"): a cell that a
 * spreadsheet would run as a formula, starting with = + - @ TAB or CR and
 * not a number ("-1.5" stays a number), or one starting with an apostrophe
 * (which a spreadsheet would drop), is written after an apostrophe.
 * out_csv_formula says whether s needs it. out_csv_cell writes s as one
 * field: so neutralised unless flags has OUT_CSV_RAW (--csv-raw), then
 * double-quoted (quotes doubled) when it holds a comma, a quote, CR or LF,
 * or starts or ends with a space (RFC 4180), or always with OUT_CSV_QUOTE.
 */
#define OUT_CSV_RAW 1
#define OUT_CSV_QUOTE 2
int out_csv_formula(const char *s);
void out_csv_cell(FILE *f, const char *s, int flags);

/* s as a double-quoted string, valid JSON and YAML: '"' and '\\' escaped,
 * control characters dropped. */
void out_quoted(FILE *f, const char *s);

/* s as XML attribute text: & < > " ' as entities, control characters
 * (other than tab) and DEL dropped. */
void out_xml(FILE *f, const char *s);

/* s as the text of an XML comment: control characters dropped, and a space
 * after every '-' that another '-' or the comment's end follows, so the
 * text cannot hold "--" or close the comment. */
void out_xml_comment(FILE *f, const char *s);

#endif
