/*
 * resume.c - what a sweep resumes from (sweep.h, run.c): the rows of an
 * earlier output read back into a map from their keys, and OUT.partial
 * opened and locked, with the temporary files of runs killed before their
 * end removed.
 */
#define _DEFAULT_SOURCE     /* flock */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sweep.h"
#include "sweep_int.h"

/* ---- old rows: key -> row, in the order read -------------------------------- */

static uint64_t hstr(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ull;
	}
	return h;
}

struct swp_old *swp_old_find(const struct swp_oldmap *m, const char *key)
{
	size_t i;
	if (!m->tcap)
		return NULL;
	for (i = (size_t)hstr(key) & (m->tcap - 1); m->tab[i]; i = (i + 1) & (m->tcap - 1))
		if (!strcmp(m->v[m->tab[i] - 1].key, key))
			return &m->v[m->tab[i] - 1];
	return NULL;
}

static int old_add(struct swp_oldmap *m, char *key, char *row, int carry)
{
	struct swp_old *o = swp_old_find(m, key);
	size_t i;
	if (o) {                /* a newer copy of the same row */
		free(o->row);
		free(key);
		o->row = row;
		o->carry |= carry;
		return 0;
	}
	if ((m->n + 1) * 2 > m->tcap) {
		size_t nc = m->tcap ? m->tcap * 2 : 1024, j;
		size_t *nt = calloc(nc, sizeof(*nt));
		if (!nt)
			return -1;
		free(m->tab);
		m->tab = nt;
		m->tcap = nc;
		for (j = 0; j < m->n; j++) {
			for (i = (size_t)hstr(m->v[j].key) & (nc - 1); nt[i]; i = (i + 1) & (nc - 1))
				;
			nt[i] = j + 1;
		}
	}
	if (m->n == m->cap) {
		size_t nc = m->cap ? m->cap * 2 : 256;
		struct swp_old *nv = realloc(m->v, nc * sizeof(*nv));
		if (!nv)
			return -1;
		m->v = nv;
		m->cap = nc;
	}
	m->v[m->n].key = key;
	m->v[m->n].row = row;
	m->v[m->n].used = 0;
	m->v[m->n].carry = carry;
	for (i = (size_t)hstr(key) & (m->tcap - 1); m->tab[i]; i = (i + 1) & (m->tcap - 1))
		;
	m->tab[i] = ++m->n;
	return 0;
}

void swp_old_free(struct swp_oldmap *m)
{
	size_t i;
	for (i = 0; i < m->n; i++) {
		free(m->v[i].key);
		free(m->v[i].row);
	}
	free(m->v);
	free(m->tab);
}

/* Largest earlier output a sweep reads back to resume (rows of about 300
 * bytes: some 3.5 million points). */
#define SWP_MAX_RESUME (1024u << 20)

/* The whole of fd (NUL-terminated; *len bytes), or NULL with err set. */
static char *slurp_fd(int fd, const char *path, size_t *len, struct plumb_err *err)
{
	char *buf = NULL;
	size_t n = 0, cap = 0;
	ssize_t got;
	for (;;) {
		if (n > SWP_MAX_RESUME) {
			free(buf);
			plumb_err_set(err, PLUMB_EINPUT, path, 0, 0,
				      "larger than %u MiB: too large to resume from; use --fresh or another -o",
				      SWP_MAX_RESUME >> 20);
			return NULL;
		}
		if (n + 65536 + 1 > cap) {
			char *nb = realloc(buf, cap = (cap ? cap * 2 : 131072));
			if (!nb) {
				free(buf);
				plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
				return NULL;
			}
			buf = nb;
		}
		got = read(fd, buf + n, 65536);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			free(buf);
			plumb_err_set(err, PLUMB_EIO, path, 0, 0, "cannot read: %s", strerror(errno));
			return NULL;
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* Where the record starting at p ends: the next line break outside a CSV
 * quoted field (csv) or the next line break; NULL when there is none. */
static char *record_end(char *p, int csv)
{
	int q = 0;
	if (!csv)
		return strchr(p, '\n');
	for (; *p; p++) {
		if (*p == '"')
			q = !q;
		else if (*p == '\n' && !q)
			return p;
	}
	return NULL;
}

/*
 * Read the rows of an earlier output (buf, NUL-terminated, named path) into
 * m. An empty buffer holds no rows. `partial`: a torn last line or
 * unreadable row is skipped rather than an error.
 */
static int read_old(struct swp_eval *e, const char *path, char *buf, const char *header,
		    int partial, struct swp_oldmap *m, struct plumb_err *err)
{
	char *p, *nl;
	size_t hl = strlen(header);
	int json = header[0] == '{';

	if (!*buf)
		return 0;
	if (strncmp(buf, header, hl)) {
		if (partial)    /* another grid's leftovers: start over */
			return 0;
		return plumb_err_set(err, PLUMB_EINPUT, path, 1, 1,
				     "this file has other columns than the grid's rows: remove it or write elsewhere (-o)");
	}
	for (p = buf + hl; *p; p = nl + 1) {
		char *row, *key, *end;
		if (!(nl = record_end(p, !json)))
			break;  /* torn last line */
		*nl = '\0';
		row = p;
		while (*row == ' ')
			row++;
		end = row + strlen(row);
		/* JSON rows end in ',' but the last; a CSV row's last field may be empty */
		if (json && end > row && end[-1] == ',')
			*--end = '\0';
		if (!*row || !strcmp(row, "]") || !strcmp(row, "}"))
			continue;
		if (!(key = swp_row_key(e, row))) {
			if (partial)
				continue;
			return plumb_err_set(err, PLUMB_EINPUT, path, 0, 0,
					     "a row does not parse: %.60s", row);
		}
		if (!(row = strdup(row)) || old_add(m, key, row, partial) < 0) {
			free(key);
			free(row);
			return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		}
	}
	return 0;
}

/* Read the earlier output at path (a missing file holds no rows). */
int swp_read_old_path(struct swp_eval *e, const char *path, const char *header,
			 struct swp_oldmap *m, struct plumb_err *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc;
	char *buf;
	size_t len;
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		return plumb_err_set(err, PLUMB_EIO, path, 0, 0, "cannot read: %s", strerror(errno));
	}
	buf = slurp_fd(fd, path, &len, err);
	close(fd);
	if (!buf)
		return -plumb_err_status(err);
	rc = read_old(e, path, buf, header, 0, m, err);
	free(buf);
	return rc;
}

/*
 * Remove PARTIAL.tmp.XXXXXX (6 of [a-z0-9], out_mkexcl's names): only a
 * sweep holding the lock on PARTIAL writes them, so with the lock held
 * they are what a run killed by SIGKILL or a power cut left behind.
 */
static void remove_stale(const char *partial)
{
	const char *slash = strrchr(partial, '/');
	const char *base = slash ? slash + 1 : partial;
	size_t dl = slash ? (size_t)(slash - partial) : 0, bl = strlen(base);
	char *dir = slash ? (dl ? strndup(partial, dl) : strdup("/")) : strdup(".");
	struct dirent *d;
	DIR *dp = dir ? opendir(dir) : NULL;

	while (dp && (d = readdir(dp))) {
		const char *n = d->d_name, *x = n + bl + 5;
		char *path;
		int i, ok = !strncmp(n, base, bl) && !strncmp(n + bl, ".tmp.", 5) &&
			    strlen(x) == 6;
		for (i = 0; ok && i < 6; i++)
			ok = (x[i] >= 'a' && x[i] <= 'z') || (x[i] >= '0' && x[i] <= '9');
		if (!ok || !(path = malloc(strlen(dir) + strlen(n) + 2)))
			continue;
		sprintf(path, "%s/%s", dir, n);
		unlink(path);
		free(path);
	}
	if (dp)
		closedir(dp);
	free(dir);
}

/*
 * Open and lock the existing OUT.partial (created empty when there is
 * none): never through a symbolic link, only a regular file, locked (flock)
 * so that a second sweep on the same output stops with an error instead of
 * mixing its rows in. When `m`, the rows already in it are read (and marked
 * to be carried). The file is left as it is: its rows stay on disk until
 * the new OUT.partial that carries them has replaced it (renew_partial).
 * Returns the locked descriptor.
 */
int swp_open_partial(struct swp_eval *e, const char *partial, const char *outpath,
			const char *header, struct swp_oldmap *m, struct plumb_err *err)
{
	int attempt;
	for (attempt = 0; attempt < 10; attempt++) {
		struct stat fs, ps;
		int fd = open(partial, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0666);
		if (fd < 0) {
			if (errno == ELOOP)
				return plumb_err_set(err, PLUMB_EIO, partial, 0, 0,
						     "cannot write: a symbolic link (remove it)");
			return plumb_err_set(err, PLUMB_EIO, partial, 0, 0, "cannot write: %s",
					     strerror(errno));
		}
		if (fstat(fd, &fs) != 0 || !S_ISREG(fs.st_mode)) {
			close(fd);
			return plumb_err_set(err, PLUMB_EIO, partial, 0, 0,
					     "cannot write: not a regular file (remove it)");
		}
		if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
			int en = errno;
			close(fd);
			if (en == EWOULDBLOCK)
				return plumb_err_set(err, PLUMB_EIO, outpath, 0, 0,
						     "another plumb sweep is writing this output "
						     "(it holds the lock on %s); wait for it or write elsewhere (-o)",
						     partial);
			return plumb_err_set(err, PLUMB_EIO, partial, 0, 0, "cannot lock: %s",
					     strerror(en));
		}
		/* the holder we waited for may have replaced or renamed it meanwhile */
		if (lstat(partial, &ps) != 0 || ps.st_ino != fs.st_ino || ps.st_dev != fs.st_dev) {
			close(fd);
			continue;
		}
		remove_stale(partial);
		if (m) {
			size_t len;
			char *buf = slurp_fd(fd, partial, &len, err);
			int rc = buf ? read_old(e, partial, buf, header, 1, m, err)
				     : -plumb_err_status(err);
			free(buf);
			if (rc < 0) {
				close(fd);
				return rc;
			}
		}
		return fd;
	}
	return plumb_err_set(err, PLUMB_EIO, partial, 0, 0, "cannot write: replaced while opening");
}

