/*
 * err.c - filling and printing struct plumb_err.
 */
#include "err.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void plumb_err_clear(struct plumb_err *e)
{
	if (e) {
		memset(e, 0, sizeof(*e));
		e->file = "";
	}
}

/*
 * The file names of errors, each kept once (a hash set that only grows:
 * errors name few files, and a struct plumb_err is copied and dropped
 * without being released).
 */
#define FILE_BUCKETS 64

struct err_file {
	struct err_file *next;
	char name[];
};

const char *plumb_keep_path(const char *file)
{
	static struct err_file *bucket[FILE_BUCKETS];
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	struct err_file *p;
	unsigned h = 5381;
	const char *c;
	size_t n;

	if (!file || !file[0])
		return "";
	for (c = file; *c; c++)
		h = h * 33 + (unsigned char)*c;
	n = (size_t)(c - file);
	pthread_mutex_lock(&mu);
	for (p = bucket[h % FILE_BUCKETS]; p; p = p->next)
		if (!strcmp(p->name, file))
			break;
	if (!p && (p = malloc(sizeof(*p) + n + 1))) {
		memcpy(p->name, file, n + 1);
		p->next = bucket[h % FILE_BUCKETS];
		bucket[h % FILE_BUCKETS] = p;
	}
	pthread_mutex_unlock(&mu);
	return p ? p->name : NULL;
}

int plumb_err_set(struct plumb_err *e, int code, const char *file, int line,
		  int col, const char *fmt, ...)
{
	if (code == 0)
		code = PLUMB_ERUNTIME;
	if (e) {
		va_list ap;
		e->code = code;
		if (!(e->file = plumb_keep_path(file)))
			e->file = "";   /* out of memory: the message without its file */
		e->line = line;
		e->col = col;
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
		va_end(ap);
	}
	return -code;
}

/* Copy line number `line` (1-based) of `path` into buf (NUL-terminated, cut
 * at n - 1 bytes; tabs as spaces); 0 on success. Only a regular file is read
 * again: a FIFO or device given as input is not reopened (it would block or
 * give other bytes). */
static int read_line(const char *path, int line, char *buf, size_t n)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	struct stat st;
	FILE *f;
	int cur = 1, c;
	size_t len = 0;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || !(f = fdopen(fd, "r"))) {
		close(fd);
		return -1;
	}
	while (cur < line && (c = getc(f)) != EOF)
		if (c == '\n')
			cur++;
	if (cur != line) {
		fclose(f);
		return -1;
	}
	while ((c = getc(f)) != EOF && c != '\n' && len + 1 < n)
		buf[len++] = (char)(c == '\t' ? ' ' : c);
	buf[len] = '\0';
	fclose(f);
	return 0;
}

/* Length of the UTF-8 sequence at s (n bytes left) that a terminal shows
 * as text, or 0: a control character (C0, DEL, C1), a byte that is not
 * UTF-8, an overlong or surrogate form. */
static size_t printable(const unsigned char *s, size_t n)
{
	size_t len, i;
	unsigned cp;

	if (s[0] >= 0x20 && s[0] < 0x7f)
		return 1;
	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;
	len = s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4;
	if (len > n)
		return 0;
	cp = s[0] & (0x7fu >> len);
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3fu);
	}
	if (cp < 0xa0 || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;   /* C1 controls (CSI is U+009B), overlong, surrogate */
	return len;
}

size_t plumb_err_safe(char *dst, size_t size, const char *src, size_t max)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t n = strlen(src), o = 0, shown = 0, i = 0;

	while (i < n && o + 5 < size) {
		size_t k = printable(s + i, n - i);
		if (shown == max) {
			memcpy(dst + o, "...", 3);
			o += 3;
			i = n + 1;  /* cut */
			break;
		}
		if (k) {
			memcpy(dst + o, s + i, k);
			o += k;
			i += k;
		} else {
			dst[o++] = '?';
			i++;
		}
		shown++;
	}
	dst[o] = '\0';
	return shown;
}

void plumb_str_clean(char *f, size_t n)
{
	char *t;
	size_t len;
	if (!n || !(t = calloc(1, n + 8)))
		return;
	plumb_err_safe(t, n + 8, f, n);
	len = strlen(t);
	if (len >= n)
		len = n - 1;
	memset(f, 0, n);
	memcpy(f, t, len);
	free(t);
}

/* The source line around column col (1-based, in characters as the
 * parsers count them), at most about 120 characters of it, made safe,
 * with the caret under col. */
static void print_source(const char *src, int col)
{
	char shown[1024];
	size_t start = 0, i;
	int lead = 0, pos;

	if (col > 80)
		start = (size_t)col - 60;
	if (start > strlen(src))
		start = strlen(src);
	/* keep a UTF-8 character whole */
	while (start > 0 && ((unsigned char)src[start] & 0xc0) == 0x80)
		start--;
	plumb_err_safe(shown, sizeof(shown), src + start, 120);
	if (start > 0)
		lead = 3;
	fprintf(stderr, "  %s%s\n  ", lead ? "..." : "", shown);
	pos = col - 1 - (int)start + lead;
	for (i = 0; pos > 0 && i < (size_t)pos && i < 130; i++)
		fputc(' ', stderr);
	fputs("^\n", stderr);
}

void plumb_err_print(const struct plumb_err *e)
{
	char src[4096], file[1024], msg[2048];
	const char *path = e->file ? e->file : "";

	plumb_err_safe(file, sizeof(file), path, 200);
	plumb_err_safe(msg, sizeof(msg), e->msg, PLUMB_ERR_SHOWN);
	if (path[0] && e->line > 0 && e->col > 0)
		fprintf(stderr, "plumb: error: %s:%d:%d: %s\n", file, e->line, e->col, msg);
	else if (path[0] && e->line > 0)
		fprintf(stderr, "plumb: error: %s:%d: %s\n", file, e->line, msg);
	else if (path[0])
		fprintf(stderr, "plumb: error: %s: %s\n", file, msg);
	else
		fprintf(stderr, "plumb: error: %s\n", msg);

	if (path[0] && e->line > 0 &&
	    read_line(path, e->line, src, sizeof(src)) == 0)
		print_source(src, e->col);
}

int plumb_err_status(const struct plumb_err *e)
{
	return e->code ? e->code : PLUMB_ERUNTIME;
}
