/*
 * err.c - filling and printing struct plumb_err.
 */
#include "err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void plumb_err_clear(struct plumb_err *e)
{
	if (e)
		memset(e, 0, sizeof(*e));
}

int plumb_err_set(struct plumb_err *e, int code, const char *file, int line,
		  int col, const char *fmt, ...)
{
	if (code == 0)
		code = PLUMB_ERUNTIME;
	if (e) {
		va_list ap;
		e->code = code;
		snprintf(e->file, sizeof(e->file), "%s", file ? file : "");
		e->line = line;
		e->col = col;
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
		va_end(ap);
	}
	return -code;
}

/* Copy line number `line` (1-based) of `path` into buf; 0 on success. */
static int read_line(const char *path, int line, char *buf, size_t n)
{
	FILE *f = fopen(path, "r");
	int cur = 1, c;
	size_t len = 0;

	if (!f)
		return -1;
	while (cur < line && (c = fgetc(f)) != EOF)
		if (c == '\n')
			cur++;
	if (cur != line) {
		fclose(f);
		return -1;
	}
	while ((c = fgetc(f)) != EOF && c != '\n' && len + 1 < n)
		buf[len++] = (char)(c == '\t' ? ' ' : c);
	buf[len] = '\0';
	fclose(f);
	return 0;
}

void plumb_err_print(const struct plumb_err *e)
{
	char src[512];

	if (e->file[0] && e->line > 0 && e->col > 0)
		fprintf(stderr, "plumb: error: %s:%d:%d: %s\n", e->file, e->line,
			e->col, e->msg);
	else if (e->file[0] && e->line > 0)
		fprintf(stderr, "plumb: error: %s:%d: %s\n", e->file, e->line,
			e->msg);
	else if (e->file[0])
		fprintf(stderr, "plumb: error: %s: %s\n", e->file, e->msg);
	else
		fprintf(stderr, "plumb: error: %s\n", e->msg);

	if (e->file[0] && e->line > 0 &&
	    read_line(e->file, e->line, src, sizeof(src)) == 0) {
		int i;
		fprintf(stderr, "  %s\n  ", src);
		for (i = 1; i < e->col; i++)
			fputc(' ', stderr);
		fputs("^\n", stderr);
	}
}

int plumb_err_status(const struct plumb_err *e)
{
	return e->code ? e->code : PLUMB_ERUNTIME;
}
