/*
 * run.c - running a sweep: worker threads, the in-order writer, resuming,
 * progress (sweep.h).
 *
 * Workers take point indices in order from a dispenser and put their rows
 * into a ring of WINDOW slots; the writer (the calling thread) writes the
 * rows in point order as soon as the next one is ready, so memory holds at
 * most WINDOW rows whatever the grid's size, and the output is the same for
 * any number of workers. The dispenser hands out no point beyond the writer's
 * position + WINDOW.
 *
 * Output goes to OUT.partial, flushed at least every second, and is renamed
 * over OUT at the end: OUT is never half written (OUT as io/out.h resolves
 * it: a link's target; "-", a device or a FIFO is written as it goes).
 * OUT.partial is opened without following links and held under flock for
 * the whole run, so two sweeps never mix rows in one file. Resuming reads OUT and
 * OUT.partial (an interrupted run's prefix; a torn last line is ignored):
 * rows whose key matches a point are written as they were and not
 * evaluated; old rows that match no point are kept, after the grid's rows.
 */
#define _DEFAULT_SOURCE     /* flock */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "out.h"
#include "sweep.h"
#include "sweep_int.h"

#define WINDOW 4096

/* ---- old rows: key -> row, in the order read -------------------------------- */

struct old {
	char *key, *row;
	int used;
};

struct oldmap {
	struct old *v;          /* in the order read */
	size_t n, cap;
	size_t *tab;            /* hash slots: index + 1 into v, 0 empty */
	size_t tcap;
};

static uint64_t hstr(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ull;
	}
	return h;
}

static struct old *old_find(const struct oldmap *m, const char *key)
{
	size_t i;
	if (!m->tcap)
		return NULL;
	for (i = (size_t)hstr(key) & (m->tcap - 1); m->tab[i]; i = (i + 1) & (m->tcap - 1))
		if (!strcmp(m->v[m->tab[i] - 1].key, key))
			return &m->v[m->tab[i] - 1];
	return NULL;
}

static int old_add(struct oldmap *m, char *key, char *row)
{
	struct old *o = old_find(m, key);
	size_t i;
	if (o) {                /* a newer copy of the same row */
		free(o->row);
		free(key);
		o->row = row;
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
		struct old *nv = realloc(m->v, nc * sizeof(*nv));
		if (!nv)
			return -1;
		m->v = nv;
		m->cap = nc;
	}
	m->v[m->n].key = key;
	m->v[m->n].row = row;
	m->v[m->n].used = 0;
	for (i = (size_t)hstr(key) & (m->tcap - 1); m->tab[i]; i = (i + 1) & (m->tcap - 1))
		;
	m->tab[i] = ++m->n;
	return 0;
}

static void old_free(struct oldmap *m)
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
		    int partial, struct oldmap *m, struct plumb_err *err)
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
		if (!(row = strdup(row)) || old_add(m, key, row) < 0)
			return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	}
	return 0;
}

/* Read the earlier output at path (a missing file holds no rows). */
static int read_old_path(struct swp_eval *e, const char *path, const char *header,
			 struct oldmap *m, struct plumb_err *err)
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
 * Open OUT.partial for writing, exclusively: never through a symbolic link,
 * only a regular file, locked (flock) so that a second sweep on the same
 * output stops with an error instead of mixing its rows in. When `m`, the
 * rows already in it are read first. Returns the descriptor, truncated.
 */
static int open_partial(struct swp_eval *e, const char *partial, const char *outpath,
			const char *header, struct oldmap *m, struct plumb_err *err)
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
		/* the holder we waited for may have renamed it over OUT meanwhile */
		if (lstat(partial, &ps) != 0 || ps.st_ino != fs.st_ino || ps.st_dev != fs.st_dev) {
			close(fd);
			continue;
		}
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
		if (ftruncate(fd, 0) != 0 || lseek(fd, 0, SEEK_SET) != 0) {
			close(fd);
			return plumb_err_set(err, PLUMB_EIO, partial, 0, 0, "cannot write: %s",
					     strerror(errno));
		}
		return fd;
	}
	return plumb_err_set(err, PLUMB_EIO, partial, 0, 0, "cannot write: replaced while opening");
}

/* ---- the runner --------------------------------------------------------------- */

struct slot {
	char *row;
	int state;              /* 0 empty, 1 a new row, 2 an old row (not ours to free) */
};

struct swp_runner {
	const struct swp_grid *g;
	struct swp_eval *e;
	pthread_mutex_t mu;
	pthread_cond_t cv_row, cv_room;
	uint64_t next_disp, next_write;
	struct slot ring[WINDOW];
	struct oldmap old;
	int stop;
	struct plumb_err err;
	int failed;
	uint64_t computed, reused;
};

int swp_runner_take(struct swp_runner *r, uint64_t *out, int max, int wait)
{
	int n = 0;
	pthread_mutex_lock(&r->mu);
	while (n < max && !r->stop && r->next_disp < r->g->npoints) {
		uint64_t i = r->next_disp;
		if (i >= r->next_write + WINDOW) {
			if (n || !wait)
				break;
			pthread_cond_wait(&r->cv_room, &r->mu);
			continue;
		}
		if (r->old.n) {
			char *key = swp_point_key(r->e, i);
			struct old *o = key ? old_find(&r->old, key) : NULL;
			free(key);
			if (o && !o->used) {
				o->used = 1;
				r->ring[i % WINDOW].row = o->row;
				r->ring[i % WINDOW].state = 2;
				r->reused++;
				r->next_disp++;
				pthread_cond_broadcast(&r->cv_row);
				continue;
			}
		}
		out[n++] = i;
		r->next_disp++;
	}
	pthread_mutex_unlock(&r->mu);
	return n;
}

uint64_t swp_runner_left(struct swp_runner *r)
{
	uint64_t n;
	pthread_mutex_lock(&r->mu);
	n = r->stop ? 0 : r->g->npoints - r->next_disp;
	pthread_mutex_unlock(&r->mu);
	return n;
}

void swp_runner_put(struct swp_runner *r, uint64_t i, char *row)
{
	pthread_mutex_lock(&r->mu);
	r->ring[i % WINDOW].row = row;
	r->ring[i % WINDOW].state = 1;
	r->computed++;
	pthread_cond_broadcast(&r->cv_row);
	pthread_mutex_unlock(&r->mu);
}

void swp_runner_fail(struct swp_runner *r, const struct plumb_err *e)
{
	pthread_mutex_lock(&r->mu);
	if (!r->failed) {
		r->err = *e;
		r->failed = 1;
	}
	r->stop = 1;
	pthread_cond_broadcast(&r->cv_row);
	pthread_cond_broadcast(&r->cv_room);
	pthread_mutex_unlock(&r->mu);
}

static void *worker(void *arg)
{
	struct swp_runner *r = arg;
	uint64_t i;
	while (swp_runner_take(r, &i, 1, 1) == 1) {
		struct plumb_err err;
		char *row;
		plumb_err_clear(&err);
		if (swp_eval_point(r->e, i, &row, &err) < 0) {
			swp_runner_fail(r, &err);
			break;
		}
		swp_runner_put(r, i, row);
	}
	return NULL;
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void progress(const struct swp_runner *r, double t0, int last)
{
	double el = now_s() - t0, rate = el > 0 ? (double)r->computed / el : 0;
	uint64_t left = r->g->npoints - r->next_write;
	int w = 30, i, fill = (int)((double)w * (double)r->next_write / (double)r->g->npoints);
	char bar[64];
	for (i = 0; i < w; i++)
		bar[i] = i < fill ? '=' : ' ';
	bar[w] = '\0';
	fprintf(stderr, "\rsweep [%s] %llu/%llu %3.0f%%  %.0f points/s", bar,
		(unsigned long long)r->next_write, (unsigned long long)r->g->npoints,
		100.0 * (double)r->next_write / (double)r->g->npoints, rate);
	if (last)
		fprintf(stderr, "  %.1f s      \n", el);
	else if (rate > 0) {
		long eta = (long)((double)left / rate + 0.5);
		fprintf(stderr, "  ETA %ld:%02ld   ", eta / 60, eta % 60);
	} else {
		fputs("  ETA -      ", stderr);
	}
	fflush(stderr);
}

static int write_all(FILE *f, const char *s, struct plumb_err *err, const char *path)
{
	size_t n = strlen(s);
	if (n && fwrite(s, 1, n, f) != n)
		return plumb_err_set(err, PLUMB_EIO, NULL, 0, 0, "cannot write %s: %s", path,
				     strerror(errno));
	return 0;
}

int swp_run_with(const struct swp_grid *g, enum swp_format fmt, const struct swp_run_opts *o,
		 swp_poll_fn poll, void *pctx, int poll_ms, struct swp_run_stats *st,
		 struct plumb_err *err)
{
	struct swp_runner *r = calloc(1, sizeof(*r));
	pthread_t *th = NULL;
	char *partial = NULL, *target = NULL, *header = NULL;
	FILE *f = NULL;
	enum out_kind kind;
	mode_t mode;
	const char *wname = o->outpath;    /* the file written, for messages */
	int tostd, nth = 0, rc = 0, first = 1, j, fd = -1;
	double t0 = now_s(), tflush = t0, tprog = 0;
	size_t k;

	memset(st, 0, sizeof(*st));
	if (!r)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	r->g = g;
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->cv_row, NULL);
	pthread_cond_init(&r->cv_room, NULL);
	if (!(r->e = swp_eval_new(g, fmt)) || !(header = swp_header(r->e))) {
		rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		goto out;
	}
	/* -o as io/out.h: "-", a device or a FIFO is written as it goes (no
	 * resuming); a file, or a link's target, through TARGET.partial */
	if ((rc = out_resolve(o->outpath, &kind, &target, &mode, err)) < 0)
		goto out;
	tostd = kind != OUT_REPLACE;
	if (kind == OUT_DIRECT &&
	    (fd = open(target, O_WRONLY | O_APPEND | O_NOCTTY | O_CLOEXEC)) < 0) {
		rc = plumb_err_set(err, PLUMB_EIO, o->outpath, 0, 0, "cannot write: %s",
				   strerror(errno));
		goto out;
	}
	if (kind == OUT_REPLACE) {
		if (!(partial = malloc(strlen(target) + 9))) {
			rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
			goto out;
		}
		sprintf(partial, "%s.partial", target);
		wname = partial;
		if ((o->resume && (rc = read_old_path(r->e, target, header, &r->old, err)) < 0) ||
		    (rc = fd = open_partial(r->e, partial, o->outpath, header,
					    o->resume ? &r->old : NULL, err)) < 0)
			goto out;
		if (mode)
			(void)fchmod(fd, mode);
	}
	f = kind == OUT_STDOUT ? stdout : fdopen(fd, "w");
	if (!f) {
		rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		goto out;
	}
	fd = -1;    /* f owns it */
	rc = 0;
	if ((rc = write_all(f, header, err, wname)) < 0)
		goto out;
	if (!(th = calloc((size_t)(o->jobs > 0 ? o->jobs : 1), sizeof(*th)))) {
		rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		goto out;
	}
	for (nth = 0; nth < o->jobs; nth++)
		if (pthread_create(&th[nth], NULL, worker, r)) {
			rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "cannot start a thread");
			break;
		}
	if (rc < 0) {
		swp_runner_fail(r, err);
		goto join;
	}

	/* The writer. */
	pthread_mutex_lock(&r->mu);
	while (r->next_write < g->npoints && !r->stop) {
		struct slot *s = &r->ring[r->next_write % WINDOW];
		if (s->state) {
			char *row = s->row;
			int own = s->state == 1;
			s->state = 0;
			s->row = NULL;
			r->next_write++;
			pthread_cond_broadcast(&r->cv_room);
			pthread_mutex_unlock(&r->mu);
			rc = write_all(f, swp_row_sep(r->e, first), err, wname);
			if (rc == 0)
				rc = write_all(f, row, err, wname);
			if (rc == 0 && fmt == SWP_CSV)
				rc = write_all(f, "\n", err, wname);
			first = 0;
			if (own)
				free(row);
			pthread_mutex_lock(&r->mu);
			if (rc < 0)
				break;
			continue;
		}
		{
			struct timespec ts;
			double t = now_s();
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += (long)poll_ms * 1000000L;
			ts.tv_sec += ts.tv_nsec / 1000000000L;
			ts.tv_nsec %= 1000000000L;
			pthread_cond_timedwait(&r->cv_row, &r->mu, &ts);
			if (o->progress && t - tprog >= 0.2) {
				progress(r, t0, 0);
				tprog = t;
			}
			if (!tostd && t - tflush >= 1.0) {
				pthread_mutex_unlock(&r->mu);
				fflush(f);
				tflush = t;
				pthread_mutex_lock(&r->mu);
			}
			if (poll) {
				pthread_mutex_unlock(&r->mu);
				rc = poll(pctx, r, err);
				pthread_mutex_lock(&r->mu);
				if (rc < 0)
					break;
			}
		}
	}
	pthread_mutex_unlock(&r->mu);
	if (rc < 0)
		swp_runner_fail(r, err);
join:
	pthread_mutex_lock(&r->mu);
	r->stop = 1;
	pthread_cond_broadcast(&r->cv_room);
	pthread_mutex_unlock(&r->mu);
	for (j = 0; j < nth; j++)
		pthread_join(th[j], NULL);
	if (r->failed) {
		if (rc == 0 || err->code == 0)
			*err = r->err;
		rc = -plumb_err_status(err);
		goto out;
	}
	if (rc < 0)
		goto out;
	if (o->progress)
		progress(r, t0, 1);
	/* Old rows that match no point are kept, after the grid's. */
	for (k = 0; k < r->old.n && rc == 0; k++)
		if (!r->old.v[k].used) {
			rc = write_all(f, swp_row_sep(r->e, first), err, wname);
			if (rc == 0)
				rc = write_all(f, r->old.v[k].row, err, wname);
			if (rc == 0 && fmt == SWP_CSV)
				rc = write_all(f, "\n", err, wname);
			first = 0;
			st->kept++;
		}
	if (rc == 0)
		rc = write_all(f, swp_footer(r->e), err, wname);
	if (rc < 0)
		goto out;
	if (tostd) {
		int bad = fflush(f) != 0 || ferror(f);
		if (f != stdout) {
			bad |= fclose(f) != 0;
			f = NULL;
		}
		if (bad) {
			rc = plumb_err_set(err, PLUMB_EIO, kind == OUT_STDOUT ? "<stdout>" : o->outpath,
					   0, 0, "write error: %s", strerror(errno));
			goto out;
		}
	} else {
		int bad = fflush(f) != 0 || fsync(fileno(f)) != 0;
		if (!bad && rename(partial, target) != 0)
			bad = 1;
		bad |= fclose(f) != 0;   /* after the rename: the lock is held until then */
		f = NULL;
		if (bad) {
			rc = plumb_err_set(err, PLUMB_EIO, o->outpath, 0, 0, "cannot write: %s",
					   strerror(errno));
			goto out;
		}
	}
	st->points = g->npoints;
	st->computed = r->computed;
	st->reused = r->reused;
	st->wall_s = now_s() - t0;
	swp_cache_stats(swp_eval_cache(r->e), &st->cache);
out:
	if (f && f != stdout)
		fclose(f);      /* a failed run leaves OUT.partial for resuming */
	if (fd >= 0)
		close(fd);
	free(partial);
	free(target);
	for (k = 0; k < WINDOW; k++)
		if (r->ring[k].state == 1)
			free(r->ring[k].row);
	old_free(&r->old);
	free(th);
	free(header);
	swp_eval_free(r->e);
	pthread_mutex_destroy(&r->mu);
	pthread_cond_destroy(&r->cv_row);
	pthread_cond_destroy(&r->cv_room);
	free(r);
	return rc;
}

int swp_run(const struct swp_grid *g, enum swp_format fmt, const struct swp_run_opts *o,
	    struct swp_run_stats *st, struct plumb_err *err)
{
	return swp_run_with(g, fmt, o, NULL, NULL, 200, st, err);
}

/* ---- evaluating a batch (remote ranks) ------------------------------------- */

struct batch {
	struct swp_eval *e;
	const uint64_t *pts;
	char **rows;
	int n, next, failed;
	pthread_mutex_t mu;
	struct plumb_err err;
};

static void *batch_worker(void *arg)
{
	struct batch *b = arg;
	for (;;) {
		struct plumb_err err;
		int i;
		pthread_mutex_lock(&b->mu);
		i = b->failed ? b->n : b->next++;
		pthread_mutex_unlock(&b->mu);
		if (i >= b->n)
			return NULL;
		plumb_err_clear(&err);
		if (swp_eval_point(b->e, b->pts[i], &b->rows[i], &err) < 0) {
			pthread_mutex_lock(&b->mu);
			if (!b->failed)
				b->err = err;
			b->failed = 1;
			pthread_mutex_unlock(&b->mu);
		}
	}
}

int swp_eval_many(struct swp_eval *e, const uint64_t *pts, int n, int jobs, char **rows,
		  struct plumb_err *err)
{
	struct batch b;
	pthread_t th[64];
	int i, nth = 0;

	memset(&b, 0, sizeof(b));
	b.e = e;
	b.pts = pts;
	b.rows = rows;
	b.n = n;
	pthread_mutex_init(&b.mu, NULL);
	for (i = 0; i < n; i++)
		rows[i] = NULL;
	if (jobs > 64)
		jobs = 64;
	for (i = 1; i < jobs && i < n; i++)
		if (!pthread_create(&th[nth], NULL, batch_worker, &b))
			nth++;
	batch_worker(&b);
	for (i = 0; i < nth; i++)
		pthread_join(th[i], NULL);
	pthread_mutex_destroy(&b.mu);
	if (b.failed) {
		for (i = 0; i < n; i++) {
			free(rows[i]);
			rows[i] = NULL;
		}
		*err = b.err;
		return -plumb_err_status(err);
	}
	return 0;
}
