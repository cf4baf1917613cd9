/*
 * out.c - the safe output path (see out.h).
 *
 * Nothing here follows a name it did not just create: the temporary file is
 * created exclusively and without following links, a symbolic link given as
 * FILE is resolved once (realpath) and its target replaced by rename, and a
 * device or FIFO is opened without O_CREAT or O_TRUNC.
 */
#define _XOPEN_SOURCE 700   /* realpath */
#include "out.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char *dupstr(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);
	if (d)
		memcpy(d, s, n);
	return d;
}

static int oom(struct plumb_err *err)
{
	return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory for the output");
}

int out_resolve(const char *path, enum out_kind *kind, char **target, mode_t *mode,
		struct plumb_err *err)
{
	struct stat ls, st;

	*target = NULL;
	*mode = 0;
	if (!strcmp(path, "-")) {
		*kind = OUT_STDOUT;
		return (*target = dupstr(path)) ? 0 : oom(err);
	}
	if (!*path)
		return plumb_err_set(err, PLUMB_EIO, NULL, 0, 0, "cannot write: empty file name");
	/* the caller's own open files (`-o /dev/stdout >> log`): written through
	 * the descriptor, appended, whatever they are; replacing the file they
	 * name would drop what the shell's `>>` meant to keep */
	if (!strcmp(path, "/dev/stdout") || !strcmp(path, "/dev/stderr") ||
	    !strncmp(path, "/dev/fd/", 8) || !strncmp(path, "/proc/self/fd/", 14)) {
		*kind = OUT_DIRECT;
		return (*target = dupstr(path)) ? 0 : oom(err);
	}
	if (lstat(path, &ls) != 0) {
		if (errno != ENOENT)
			return plumb_err_set(err, PLUMB_EIO, path, 0, 0, "cannot write: %s",
					     strerror(errno));
		*kind = OUT_REPLACE;
		return (*target = dupstr(path)) ? 0 : oom(err);
	}
	if (stat(path, &st) != 0)
		return plumb_err_set(err, PLUMB_EIO, path, 0, 0,
				     "cannot write: a symbolic link to a missing file (%s)",
				     strerror(errno));
	if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
		*kind = OUT_DIRECT;
		return (*target = dupstr(path)) ? 0 : oom(err);
	}
	if (S_ISDIR(st.st_mode))
		return plumb_err_set(err, PLUMB_EIO, path, 0, 0, "cannot write: is a directory");
	if (!S_ISREG(st.st_mode))
		return plumb_err_set(err, PLUMB_EIO, path, 0, 0,
				     "cannot write: not a regular file, character device or FIFO");
	*kind = OUT_REPLACE;
	*mode = st.st_mode & 07777;
	if (!S_ISLNK(ls.st_mode))
		return (*target = dupstr(path)) ? 0 : oom(err);
	if (!(*target = realpath(path, NULL)))
		return plumb_err_set(err, PLUMB_EIO, path, 0, 0, "cannot write: %s",
				     strerror(errno));
	return 0;
}

int out_create(const char *name, mode_t mode)
{
	return open(name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode ? mode : 0666);
}

int out_mkexcl(const char *base, const char *suffix, mode_t mode, char **name,
	       struct plumb_err *err)
{
	static const char digits[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	size_t bl = strlen(base), sl = strlen(suffix);
	char *s = malloc(bl + sl + 7);
	struct timespec ts;
	uint64_t x;
	int attempt, fd = -1, e = EEXIST;

	*name = NULL;
	if (!s)
		return oom(err);
	clock_gettime(CLOCK_REALTIME, &ts);
	x = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^
	    ((uint64_t)getpid() << 16) ^ (uint64_t)(uintptr_t)s;
	memcpy(s, base, bl);
	memcpy(s + bl, suffix, sl);
	for (attempt = 0; attempt < 100 && fd < 0 && e == EEXIST; attempt++) {
		uint64_t z;
		int i;
		/* splitmix64: a fresh, hard to guess name per attempt */
		x += 0x9e3779b97f4a7c15ull;
		z = x;
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
		z ^= z >> 31;
		for (i = 0; i < 6; i++, z /= 36)
			s[bl + sl + (size_t)i] = digits[z % 36];
		s[bl + sl + 6] = '\0';
		fd = out_create(s, mode);
		if (fd < 0)
			e = errno;
	}
	if (fd < 0) {
		free(s);
		return plumb_err_set(err, PLUMB_EIO, base, 0, 0, "cannot write: %s", strerror(e));
	}
	/* the umask applies to open's mode; a replaced file keeps its own bits */
	if (mode)
		(void)fchmod(fd, mode);
	*name = s;
	return fd;
}

/*
 * A signal (Ctrl-C, kill) during a run must not leave temporary files
 * behind. The one process-wide state in io/: the temporary files and
 * directories being written (registered by out_tmp_add), removed by the
 * handler, newest first (unlink and rmdir are async-signal-safe), which
 * then lets the signal take its default course.
 */
#define OUT_MAXTMP 256
static const char *volatile tmp_path[OUT_MAXTMP];
static volatile sig_atomic_t tmp_dir[OUT_MAXTMP];

static void on_signal(int sig)
{
	int i;
	for (i = OUT_MAXTMP - 1; i >= 0; i--) {
		const char *t = tmp_path[i];
		if (t)
			(void)(tmp_dir[i] ? rmdir(t) : unlink(t));
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static void catch_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
	static int done;
	size_t i;
	if (done)
		return;
	done = 1;
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction sa, old;
		if (sigaction(sigs[i], NULL, &old) != 0 || old.sa_handler != SIG_DFL)
			continue;   /* ignored or handled by someone else: leave it */
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_signal;
		sigemptyset(&sa.sa_mask);
		sigaction(sigs[i], &sa, NULL);
	}
}

int out_tmp_add(const char *path, int isdir)
{
	int i;
	catch_signals();
	for (i = 0; i < OUT_MAXTMP; i++)
		if (!tmp_path[i]) {
			tmp_dir[i] = isdir;
			tmp_path[i] = path;
			return 0;
		}
	return -1;
}

void out_tmp_forget(const char *path)
{
	int i;
	for (i = OUT_MAXTMP - 1; i >= 0; i--)
		if (tmp_path[i] == path) {
			tmp_path[i] = NULL;
			return;
		}
}

int out_open(struct outfile *o, const char *path, struct plumb_err *err)
{
	mode_t mode;
	int rc, fd;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	if ((rc = out_resolve(path, &o->kind, &o->target, &mode, err)) < 0)
		return rc;
	if (!(o->path = dupstr(path))) {
		rc = oom(err);
		goto fail;
	}
	o->is_stdout = o->kind == OUT_STDOUT;
	if (o->kind == OUT_DIRECT &&
	    (o->fd = open(o->target, O_WRONLY | O_APPEND | O_NOCTTY | O_CLOEXEC)) < 0) {
		rc = plumb_err_set(err, PLUMB_EIO, path, 0, 0, "cannot write: %s",
				   strerror(errno));
		goto fail;
	}
	if (o->kind != OUT_REPLACE) {
		if (!(o->f = open_memstream(&o->mem, &o->memlen))) {
			rc = oom(err);
			goto fail;
		}
		return 0;
	}
	if ((fd = out_mkexcl(o->target, ".tmp.", mode, &o->tmp, err)) < 0) {
		rc = fd;
		goto fail;
	}
	if (!(o->f = fdopen(fd, "w"))) {
		close(fd);
		rc = oom(err);
		goto fail;
	}
	out_tmp_add(o->tmp, 0);
	return 0;
fail:
	out_abort(o);
	return rc;
}

int out_write_fd(int fd, const char *buf, size_t n)
{
	while (n) {
		ssize_t w = write(fd, buf, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (w == 0)
				errno = EIO;
			return -1;
		}
		buf += w;
		n -= (size_t)w;
	}
	return 0;
}

static void release(struct outfile *o)
{
	if (o->tmp)
		out_tmp_forget(o->tmp);
	if (o->f)
		fclose(o->f);
	o->f = NULL;
	if (o->kind == OUT_DIRECT && o->fd >= 0)
		close(o->fd);
	o->fd = -1;
	free(o->mem);
	free(o->path);
	free(o->target);
	free(o->tmp);
	o->mem = o->path = o->target = o->tmp = NULL;
}

int out_commit(struct outfile *o, struct plumb_err *err)
{
	int bad, e = 0, rc = 0;

	if (!o->f)
		return plumb_err_set(err, PLUMB_EIO, o->path, 0, 0, "not open");
	if (o->kind != OUT_REPLACE) {
		bad = ferror(o->f) != 0;
		bad |= fclose(o->f) != 0;   /* sets mem and memlen */
		o->f = NULL;
		if (o->kind == OUT_STDOUT) {
			if (!bad && o->memlen && fwrite(o->mem, 1, o->memlen, stdout) != o->memlen)
				e = errno;
			if (fflush(stdout) != 0 || ferror(stdout))
				e = e ? e : errno;
		} else if (!bad && out_write_fd(o->fd, o->mem, o->memlen) < 0) {
			e = errno;
		}
		if (bad || e)
			rc = plumb_err_set(err, PLUMB_EIO, o->kind == OUT_STDOUT ? "<stdout>" : o->path,
					   0, 0, "write error%s%s", e ? ": " : "",
					   e ? strerror(e) : "");
		release(o);
		return rc;
	}
	bad = fflush(o->f) != 0 || ferror(o->f);
	/* the data on disk before the name points at it: a crash after the
	 * rename then finds the old file or the whole new one */
	bad = bad || fsync(fileno(o->f)) != 0;
	e = errno;
	if (fclose(o->f) != 0 && !bad) {
		bad = 1;
		e = errno;
	}
	o->f = NULL;
	if (!bad && rename(o->tmp, o->target) != 0) {
		bad = 1;
		e = errno;
	}
	if (bad) {
		remove(o->tmp);
		rc = plumb_err_set(err, PLUMB_EIO, o->path, 0, 0, "cannot write: %s",
				   strerror(e ? e : EIO));
	}
	release(o);
	return rc;
}

int out_stdout_close(struct plumb_err *err)
{
	int e = 0;
	errno = 0;
	if (fflush(stdout) != 0 || ferror(stdout))
		e = errno ? errno : EIO;
	if (!e && fclose(stdout) != 0)     /* a pipe or NFS reports late */
		e = errno ? errno : EIO;
	if (e)
		return plumb_err_set(err, PLUMB_EIO, "<stdout>", 0, 0, "write error: %s",
				     strerror(e));
	return 0;
}

void out_abort(struct outfile *o)
{
	if (o->f)
		fclose(o->f);
	o->f = NULL;
	if (o->tmp)
		remove(o->tmp);
	release(o);
}

int out_csv_formula(const char *s)
{
	char *end;
	if (!s[0] || !strchr("=+-@\t\r'", s[0]))
		return 0;
	if (s[0] == '\'')
		return 1;
	strtod(s, &end);
	return !(end != s && !*end);
}

void out_csv_cell(FILE *f, const char *s, int flags)
{
	size_t n = strlen(s);
	int q = (flags & OUT_CSV_QUOTE) || strpbrk(s, ",\"\n\r") ||
		(n && (s[0] == ' ' || s[n - 1] == ' '));
	if (q)
		fputc('"', f);
	if (!(flags & OUT_CSV_RAW) && out_csv_formula(s))
		fputc('\'', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	if (q)
		fputc('"', f);
}

void out_quoted(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		if ((unsigned char)*s >= 0x20)
			fputc(*s, f);
	}
	fputc('"', f);
}

void out_xml(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		switch (c) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default:
			if ((c >= 0x20 && c != 0x7f) || c == '\t')
				fputc(c, f);
		}
	}
}

void out_xml_comment(FILE *f, const char *s)
{
	int prev = 0;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if ((c < 0x20 && c != '\t') || c == 0x7f)
			continue;
		if (c == '-' && prev == '-')
			fputc(' ', f);
		fputc(c, f);
		prev = c;
	}
	if (prev == '-')
		fputc(' ', f);
}
