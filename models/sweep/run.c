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
 * Output goes to OUT.partial, flushed whenever the writer waits for a row
 * and at least every second, and is put in place as OUT at the end: OUT is
 * never half written (OUT as io/out.h resolves it: a link's target; "-", a
 * device or a FIFO is written as it goes). OUT.partial is opened without
 * following links and held under flock for the whole run, so two sweeps
 * never mix rows in one file. Resuming reads OUT and OUT.partial (an
 * interrupted run's rows; a torn last line is ignored): rows whose key
 * matches a point are written as they were and not evaluated; old rows that
 * match no point are kept, after the grid's rows.
 *
 * No kill loses a row already on disk: OUT.partial is never truncated or
 * written in place. A run first writes a new OUT.partial beside it (the
 * header and the old partial's rows), fsyncs it and renames it over the old
 * one (renew_partial), then appends the grid's rows in point order; at the
 * end OUT is that file renamed (nothing carried) or a new file of its
 * header and point-ordered rows (finish), fsynced before the rename, and
 * OUT.partial goes only once OUT is in place.
 */
#define _DEFAULT_SOURCE     /* flock */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
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
	struct swp_oldmap old;
	int stop;
	struct plumb_err err;
	int failed;
	uint64_t computed, reused;
	long crash_at, crash_n;     /* PLUMB_SWEEP_CRASH_AT (crash_point) */
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
			struct swp_old *o = key ? swp_old_find(&r->old, key) : NULL;
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

/*
 * A test hook (tests/resume_kill.sh, docs/testing.md): with
 * PLUMB_SWEEP_CRASH_AT=K in the environment the process kills itself with
 * SIGKILL at the writer's K-th step (a row, a separator, a flush, an fsync,
 * a rename), so a test can stop a run at every point of its output,
 * the rewrite of OUT.partial included, as a power cut or `kill -9` would.
 */
static void crash_point(struct swp_runner *r)
{
	if (r->crash_at > 0 && ++r->crash_n == r->crash_at)
		raise(SIGKILL);
}

static int write_all(struct swp_runner *r, FILE *f, const char *s, struct plumb_err *err,
		     const char *path)
{
	size_t n = strlen(s);
	crash_point(r);
	if (n && fwrite(s, 1, n, f) != n)
		return plumb_err_set(err, PLUMB_EIO, path, 0, 0, "write error: %s", strerror(errno));
	return 0;
}

/* A row with what goes before and after it. */
static int write_row(struct swp_runner *r, FILE *f, enum swp_format fmt, const char *row,
		     int *first, struct plumb_err *err, const char *path)
{
	int rc = write_all(r, f, swp_row_sep(r->e, *first), err, path);
	if (rc == 0)
		rc = write_all(r, f, row, err, path);
	if (rc == 0 && fmt == SWP_CSV)
		rc = write_all(r, f, "\n", err, path);
	*first = 0;
	return rc;
}

/* Flush f and its data to the disk: fsync before every rename. */
static int sync_file(struct swp_runner *r, FILE *f)
{
	crash_point(r);
	if (fflush(f) != 0 || ferror(f) || fsync(fileno(f)) != 0)
		return -1;
	crash_point(r);
	return 0;
}

/*
 * Replace OUT.partial (held open and locked as *oldfd) by a new file:
 * header, then the old rows read from it (carried: written as rows with a
 * separator after each, so a later run reads them back the same way), made
 * durable (fsync) under a temporary name beside it, locked, and renamed
 * over it. Until the rename the old file is untouched, after it the new
 * one holds all its rows: a kill at any point loses none. *oldfd is closed
 * after the rename (a sweep waiting for its lock then sees the new file,
 * locked). Returns the new file, positioned after the carried rows, or
 * NULL with err set (the temporary file removed).
 */
static FILE *renew_partial(struct swp_runner *r, enum swp_format fmt, const char *partial,
			   mode_t mode, const char *header, int *oldfd, struct plumb_err *err)
{
	char *tmp = NULL;
	FILE *f = NULL;
	size_t k, n = 0;
	int fd, rc = 0;

	if ((fd = out_mkexcl(partial, ".tmp.", mode, &tmp, err)) < 0)
		return NULL;
	out_tmp_add(tmp, 0);
	if (flock(fd, LOCK_EX | LOCK_NB) != 0 || !(f = fdopen(fd, "w"))) {
		rc = plumb_err_set(err, PLUMB_EIO, partial, 0, 0, "cannot write: %s", strerror(errno));
		if (!f)
			close(fd);
		goto out;
	}
	rc = write_all(r, f, header, err, tmp);
	for (k = 0; k < r->old.n && rc == 0; k++)
		if (r->old.v[k].carry) {
			n++;
			int first = 1;      /* JSON: "\n    " before, "," after */
			rc = write_row(r, f, fmt, r->old.v[k].row, &first, err, tmp);
			if (rc == 0 && fmt == SWP_JSON)
				rc = write_all(r, f, ",", err, tmp);
		}
	/* JSON: the last carried row ends its line too (a line without its
	 * line break is read as torn) */
	if (rc == 0 && fmt == SWP_JSON && n)
		rc = write_all(r, f, "\n", err, tmp);
	if (rc == 0 && sync_file(r, f) < 0)
		rc = plumb_err_set(err, PLUMB_EIO, tmp, 0, 0, "cannot write: %s", strerror(errno));
	if (rc == 0 && rename(tmp, partial) != 0)
		rc = plumb_err_set(err, PLUMB_EIO, partial, 0, 0, "cannot write: %s", strerror(errno));
	if (rc == 0) {
		crash_point(r);
		close(*oldfd);
		*oldfd = -1;
	}
out:
	if (rc < 0) {
		if (f)
			fclose(f);
		f = NULL;
		unlink(tmp);
	}
	out_tmp_forget(tmp);
	free(tmp);
	return f;
}

/*
 * Put the finished OUT.partial (f, locked) in place as OUT. Without carried
 * rows it is OUT byte for byte: made durable and renamed. With carried rows
 * OUT is the header and what follows them (from `body` on), written to a
 * new OUT.partial.tmp.XXXXXX, made durable and renamed over OUT; OUT.partial
 * is then removed. The lock is held until OUT is in place.
 */
static int finish(struct swp_runner *r, FILE *f, const char *partial, const char *target,
		  mode_t mode, const char *outpath, const char *header, long body, int carried,
		  struct plumb_err *err)
{
	struct stat a, b;
	char buf[65536], *tmp = NULL;
	FILE *of = NULL;
	int rc = 0, in, fd;
	off_t at = body;

	if (!carried) {
		int bad = sync_file(r, f) < 0;
		if (!bad && rename(partial, target) != 0)
			bad = 1;
		if (bad)
			return plumb_err_set(err, PLUMB_EIO, outpath, 0, 0, "cannot write: %s",
					     strerror(errno));
		crash_point(r);
		return 0;
	}
	if (fflush(f) != 0 || ferror(f))
		return plumb_err_set(err, PLUMB_EIO, partial, 0, 0, "cannot write: %s", strerror(errno));
	/* read back through a second descriptor, checked to be the same file */
	if ((in = open(partial, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return plumb_err_set(err, PLUMB_EIO, partial, 0, 0, "cannot read: %s", strerror(errno));
	if (fstat(in, &a) != 0 || fstat(fileno(f), &b) != 0 || a.st_ino != b.st_ino ||
	    a.st_dev != b.st_dev) {
		close(in);
		return plumb_err_set(err, PLUMB_EIO, partial, 0, 0, "cannot read: replaced while writing");
	}
	if ((fd = out_mkexcl(partial, ".tmp.", mode, &tmp, err)) < 0) {
		close(in);
		return fd;
	}
	out_tmp_add(tmp, 0);
	if (!(of = fdopen(fd, "w"))) {
		close(fd);
		rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	}
	if (rc == 0)
		rc = write_all(r, of, header, err, outpath);
	while (rc == 0) {
		ssize_t got = pread(in, buf, sizeof(buf), at);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			rc = plumb_err_set(err, PLUMB_EIO, partial, 0, 0, "cannot read: %s",
					   strerror(errno));
			break;
		}
		if (got == 0)
			break;
		crash_point(r);
		if (fwrite(buf, 1, (size_t)got, of) != (size_t)got)
			rc = plumb_err_set(err, PLUMB_EIO, outpath, 0, 0, "cannot write: %s",
					   strerror(errno));
		at += got;
	}
	close(in);
	if (rc == 0 && sync_file(r, of) < 0)
		rc = plumb_err_set(err, PLUMB_EIO, outpath, 0, 0, "cannot write: %s", strerror(errno));
	if (of && fclose(of) != 0 && rc == 0)
		rc = plumb_err_set(err, PLUMB_EIO, outpath, 0, 0, "cannot write: %s", strerror(errno));
	if (rc == 0 && rename(tmp, target) != 0)
		rc = plumb_err_set(err, PLUMB_EIO, outpath, 0, 0, "cannot write: %s", strerror(errno));
	if (rc < 0)
		unlink(tmp);
	out_tmp_forget(tmp);
	free(tmp);
	if (rc < 0)
		return rc;
	crash_point(r);
	unlink(partial);    /* every row it held is in OUT now */
	return 0;
}

int swp_run_with(const struct swp_grid *g, enum swp_format fmt, const struct swp_run_opts *o,
		 swp_poll_fn poll, void *pctx, int poll_ms, struct swp_run_stats *st,
		 struct plumb_err *err)
{
	struct swp_runner *r = calloc(1, sizeof(*r));
	pthread_t *th = NULL;
	char *partial = NULL, *target = NULL, *header = NULL;
	const char *crash = getenv("PLUMB_SWEEP_CRASH_AT");
	FILE *f = NULL;
	enum out_kind kind;
	mode_t mode;
	const char *wname = o->outpath;    /* the file written, for messages */
	int tostd, nth = 0, rc = 0, first = 1, j, fd = -1, oldfd = -1, carried = 0, dirty = 0;
	double t0 = now_s(), tflush = t0, tprog = 0;
	long body = 0;
	size_t k;

	memset(st, 0, sizeof(*st));
	if (!r)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	r->g = g;
	r->crash_at = crash ? atol(crash) : 0;
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
	if (kind == OUT_STDOUT)
		wname = "<stdout>";     /* as io/out.c names it */
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
		if ((o->resume && (rc = swp_read_old_path(r->e, target, header, &r->old, err)) < 0) ||
		    (rc = oldfd = swp_open_partial(r->e, partial, o->outpath, header,
					       o->resume ? &r->old : NULL, err)) < 0)
			goto out;
		for (k = 0; k < r->old.n; k++)
			carried += r->old.v[k].carry;
		if (!(f = renew_partial(r, fmt, partial, mode, header, &oldfd, err))) {
			rc = -plumb_err_status(err);
			goto out;
		}
		body = ftell(f);
	} else {
		f = kind == OUT_STDOUT ? stdout : fdopen(fd, "w");
		if (!f) {
			rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
			goto out;
		}
		fd = -1;    /* f owns it */
		if ((rc = write_all(r, f, header, err, wname)) < 0)
			goto out;
	}
	rc = 0;
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
			rc = write_row(r, f, fmt, row, &first, err, wname);
			dirty = 1;
			if (own)
				free(row);
			pthread_mutex_lock(&r->mu);
			if (rc < 0)
				break;
			continue;
		}
		if (dirty && !tostd) {
			/* nothing ready: the rows written so far go to the file before
			 * waiting, so a run killed now can resume from every one of them */
			pthread_mutex_unlock(&r->mu);
			crash_point(r);
			fflush(f);
			dirty = 0;
			tflush = now_s();
			pthread_mutex_lock(&r->mu);
			continue;   /* a row may have come meanwhile */
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
				crash_point(r);
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
			rc = write_row(r, f, fmt, r->old.v[k].row, &first, err, wname);
			st->kept++;
		}
	if (rc == 0)
		rc = write_all(r, f, swp_footer(r->e), err, wname);
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
		rc = finish(r, f, partial, target, mode, o->outpath, header, body, carried, err);
		/* closed after OUT is in place: the lock is held until then */
		if (fclose(f) != 0 && rc == 0)
			rc = plumb_err_set(err, PLUMB_EIO, o->outpath, 0, 0, "cannot write: %s",
					   strerror(errno));
		f = NULL;
		if (rc < 0)
			goto out;
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
	if (oldfd >= 0)
		close(oldfd);
	free(partial);
	free(target);
	for (k = 0; k < WINDOW; k++)
		if (r->ring[k].state == 1)
			free(r->ring[k].row);
	swp_old_free(&r->old);
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
