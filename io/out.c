/*
 * out.c - atomic output files (see out.h).
 */
#include "out.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int out_open(struct outfile *o, const char *path, struct plumb_err *err)
{
	memset(o, 0, sizeof(*o));
	if (strcmp(path, "-") == 0) {
		o->is_stdout = 1;
		o->f = open_memstream(&o->mem, &o->memlen);
		if (!o->f)
			return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0,
					     "out of memory for the output");
		return 0;
	}
	snprintf(o->path, sizeof(o->path), "%s", path);
	snprintf(o->tmp, sizeof(o->tmp), "%s.tmp.%ld", path, (long)getpid());
	o->f = fopen(o->tmp, "w");
	if (!o->f)
		return plumb_err_set(err, PLUMB_EIO, path, 0, 0,
				     "cannot write: %s", strerror(errno));
	return 0;
}

int out_commit(struct outfile *o, struct plumb_err *err)
{
	int bad;
	if (!o->f)
		return plumb_err_set(err, PLUMB_EIO, o->path, 0, 0, "not open");
	if (o->is_stdout) {
		bad = ferror(o->f) != 0;
		bad |= fclose(o->f) != 0;   /* sets mem and memlen */
		o->f = NULL;
		if (!bad && o->memlen && fwrite(o->mem, 1, o->memlen, stdout) != o->memlen)
			bad = 1;
		bad |= fflush(stdout) != 0 || ferror(stdout);
		free(o->mem);
		o->mem = NULL;
		return bad ? plumb_err_set(err, PLUMB_EIO, "<stdout>", 0, 0,
					   "write error") : 0;
	}
	bad = fflush(o->f) != 0 || ferror(o->f);
	if (fclose(o->f) != 0)
		bad = 1;
	o->f = NULL;
	if (bad || rename(o->tmp, o->path) != 0) {
		int e = errno;
		remove(o->tmp);
		return plumb_err_set(err, PLUMB_EIO, o->path, 0, 0, "cannot write: %s",
				     strerror(e));
	}
	return 0;
}

void out_abort(struct outfile *o)
{
	if (o->is_stdout) {
		if (o->f)
			fclose(o->f);
		o->f = NULL;
		free(o->mem);
		o->mem = NULL;
		return;
	}
	if (o->f)
		fclose(o->f);
	o->f = NULL;
	if (o->tmp[0])
		remove(o->tmp);
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
