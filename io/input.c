/*
 * input.c - bounded reading of input files (input.h).
 */
#include "input.h"
#include "datadir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int too_large(const char *path, struct plumb_err *err)
{
	return plumb_err_set(err, PLUMB_EINPUT, path, 0, 0,
			     "file is larger than the %u MiB input limit", PLUMB_MAX_INPUT >> 20);
}

/* Refuse what fstat/stat says cannot be an input; 0 when it may be read. */
static int check_stat(const char *path, const struct stat *st, struct plumb_err *err)
{
	if (S_ISDIR(st->st_mode))
		return plumb_err_set(err, PLUMB_EIO, path, 0, 0, "cannot read: is a directory");
	if (S_ISREG(st->st_mode) && (unsigned long long)st->st_size > PLUMB_MAX_INPUT)
		return too_large(path, err);
	return 0;
}

int input_check(const char *path, struct plumb_err *err)
{
	char where[4096];
	struct stat st;
	int rc;

	path = plumb_data_path(path, where, sizeof(where));
	if (stat(path, &st) != 0)
		return plumb_err_set(err, PLUMB_EIO, path, 0, 0, "cannot read: %s", strerror(errno));
	if ((rc = check_stat(path, &st, err)) < 0)
		return rc;
	if (!S_ISREG(st.st_mode))
		return plumb_err_set(err, PLUMB_EINPUT, path, 0, 0,
				     "cannot read: not a regular file (a device or pipe is read "
				     "only once; save the data to a file)");
	return 0;
}

int input_read(const char *path, char **buf, size_t *len, struct plumb_err *err)
{
	char where[4096];
	const char *p = plumb_data_path(path, where, sizeof(where));
	int is_stdin = strcmp(p, "-") == 0;
	int fd = is_stdin ? 0 : open(p, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	size_t cap = 0, n = 0;
	char *b = NULL;
	struct stat st;
	int rc = 0;

	*buf = NULL;
	*len = 0;
	if (fd < 0)
		return plumb_err_set(err, PLUMB_EIO, p, 0, 0, "cannot read: %s", strerror(errno));
	if (fstat(fd, &st) != 0) {
		rc = plumb_err_set(err, PLUMB_EIO, p, 0, 0, "cannot read: %s", strerror(errno));
		goto out;
	}
	if ((rc = check_stat(p, &st, err)) < 0)
		goto out;
	for (;;) {
		ssize_t got;
		if (n + 1 >= cap) {
			/* a regular file's size is known; others grow up to the limit */
			size_t ncap = !cap && S_ISREG(st.st_mode) ? (size_t)st.st_size + 2 :
				      cap ? cap * 2 : 65536;
			char *nb;
			if (ncap > PLUMB_MAX_INPUT + 2)
				ncap = PLUMB_MAX_INPUT + 2;
			if (!(nb = realloc(b, ncap))) {
				rc = plumb_err_set(err, PLUMB_ERUNTIME, p, 0, 0,
						   "out of memory reading the input");
				goto out;
			}
			b = nb;
			cap = ncap;
		}
		got = read(fd, b + n, cap - 1 - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			rc = plumb_err_set(err, PLUMB_EIO, p, 0, 0, "cannot read: %s",
					   strerror(errno));
			goto out;
		}
		if (got == 0)
			break;
		n += (size_t)got;
		if (n > PLUMB_MAX_INPUT) {
			rc = too_large(p, err);
			goto out;
		}
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	b = NULL;
out:
	free(b);
	if (!is_stdin)
		close(fd);
	return rc;
}

char *input_path_beside(const char *file, const char *name)
{
	const char *slash = strrchr(file, '/');
	size_t dl, nl = strlen(name);
	char *p;
	if (name[0] == '/' || !slash)
		return strdup(name);
	dl = (size_t)(slash - file);
	if (!(p = malloc(dl + nl + 2)))
		return NULL;
	memcpy(p, file, dl);
	p[dl] = '/';
	memcpy(p + dl + 1, name, nl + 1);
	return p;
}
